/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/** A link's QR code, drawn as SVG in the browser (a `data:` image, which the CSP allows). */
import { useEffect, useState } from "preact/hooks";
import QRCode from "qrcode";

/** The QR code of `text`, described by `label`. */
export function QrCode({ text, label }: { text: string; label: string }) {
  const [svg, setSvg] = useState<string | null>(null);
  useEffect(() => {
    QRCode.toString(text, { type: "svg", margin: 2 }).then(setSvg, () => setSvg(null));
  }, [text]);
  if (!svg) return null;
  return (
    <img
      class="qr"
      src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`}
      alt={label}
      width={160}
      height={160}
    />
  );
}
