/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/** What a person does with a link: read it, copy it, open it, show its QR code. */
import { useState } from "preact/hooks";
import { Icon } from "../icons.tsx";
import { CopyButton } from "./copy_button.tsx";
import { QrCode } from "./qr_code.tsx";

/** The link `href` of the thing called `name`. */
export function LinkTools({ href, name }: { href: string; name: string }) {
  const [qr, setQr] = useState(false);
  return (
    <div class="link-tools">
      <div class="upload-link">
        <input type="text" readOnly value={href} aria-label={`Link to ${name}`} />
        <CopyButton text={href} label={`Copy link to ${name}`} />
        <button
          type="button"
          class="icon-button"
          aria-pressed={qr}
          aria-label={`QR code for ${name}`}
          title="QR code"
          onClick={() => setQr(!qr)}
        >
          <Icon name="qr" />
        </button>
        <a
          class="icon-button"
          href={href}
          target="_blank"
          rel="noopener"
          aria-label={`Open ${name}`}
          title="Open"
        >
          <Icon name="open" />
        </a>
      </div>
      {qr && <QrCode text={href} label={`QR code of the link to ${name}`} />}
    </div>
  );
}
