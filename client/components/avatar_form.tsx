/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * The avatar: an image chosen from disk, cropped to a square (the middle of
 * it, or where the slider puts it) and scaled to 256 px in the browser, sent
 * as a PNG data URI (`PATCH /api/user {avatar}`); or removed.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { updateMe } from "../api/account.ts";
import { Notice } from "./feedback.tsx";

const SIZE = 256;

/** `file` as a data URI (a `blob:` address is not allowed by the pages' CSP). */
export function dataUri(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as string);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

/** Draws the square of `image` that `offset` (0–1 along its longer side) picks, at 256 px. */
function crop(image: HTMLImageElement, canvas: HTMLCanvasElement, offset: number): void {
  const side = Math.min(image.naturalWidth, image.naturalHeight);
  const x = (image.naturalWidth - side) * offset;
  const y = (image.naturalHeight - side) * offset;
  canvas.width = SIZE;
  canvas.height = SIZE;
  canvas.getContext("2d")?.drawImage(image, x, y, side, side, 0, 0, SIZE, SIZE);
}

/** The avatar form; `current` is the stored avatar. */
export function AvatarForm({ current }: { current: string | null }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [image, setImage] = useState<HTMLImageElement | null>(null);
  const [offset, setOffset] = useState(0.5);
  const [saved, setSaved] = useState(current);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);

  useEffect(() => {
    if (image && canvas.current) crop(image, canvas.current, offset);
  }, [image, offset]);

  const choose = async (file: File | undefined) => {
    if (!file) return;
    const img = new Image();
    img.onload = () => setImage(img);
    img.onerror = () => setMessage({ ok: false, text: "That file is not an image." });
    img.src = await dataUri(file);
  };
  const save = async (avatar: string | null) => {
    try {
      await updateMe({ avatar });
      setSaved(avatar);
      setImage(null);
      setMessage({ ok: true, text: avatar ? "Avatar saved." : "Avatar removed." });
    } catch (e) {
      setMessage({ ok: false, text: (e as Error).message });
    }
  };
  return (
    <section class="card" aria-labelledby="avatar-title">
      <h2 id="avatar-title">Avatar</h2>
      <div class="avatar-row">
        {image
          ? <canvas ref={canvas} class="avatar" aria-label="The cropped avatar" role="img" />
          : saved
          ? <img class="avatar" src={saved} alt="Your avatar" />
          : <div class="avatar empty" aria-label="No avatar" role="img" />}
        <div class="avatar-controls">
          <label class="field">
            <span>Image</span>
            <input
              type="file"
              accept="image/png,image/jpeg,image/gif,image/webp"
              onChange={(e) => choose(e.currentTarget.files?.[0])}
            />
          </label>
          {image && image.naturalWidth !== image.naturalHeight && (
            <label class="field">
              <span>Crop position</span>
              <input
                type="range"
                min={0}
                max={1}
                step={0.01}
                value={offset}
                onInput={(e) => setOffset(Number(e.currentTarget.value))}
              />
            </label>
          )}
          <div class="button-row">
            {image && (
              <button
                type="button"
                class="primary"
                onClick={() => canvas.current && save(canvas.current.toDataURL("image/png"))}
              >
                Save avatar
              </button>
            )}
            {saved && !image && (
              <button type="button" class="danger" onClick={() => save(null)}>
                Remove avatar
              </button>
            )}
          </div>
        </div>
      </div>
      <Notice message={message} />
    </section>
  );
}
