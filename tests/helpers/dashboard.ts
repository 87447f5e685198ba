/** Steps the dashboard's browser tests share: dropping files, reading an upload's link. */
import type { Page } from "playwright-core";

/** Drops `files` (name → text) on the page, as a drag from the desktop would. */
export async function drop(page: Page, files: Record<string, string>): Promise<void> {
  await page.evaluate(`(() => {
    const data = new DataTransfer();
    for (const [name, text] of Object.entries(${JSON.stringify(files)})) {
      data.items.add(new File([text], name, { type: "text/plain" }));
    }
    const zone = document.querySelector("[aria-label='Upload files']");
    zone.dispatchEvent(new DragEvent("dragover", { dataTransfer: data, bubbles: true, cancelable: true }));
    zone.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
  })()`);
}

/** The link shown for an uploaded file, once the upload finished. */
export async function uploadedLink(page: Page, name: string): Promise<string> {
  const field = page.getByLabel(`Link to ${name}`, { exact: true });
  await field.waitFor({ timeout: 30_000 });
  return await field.inputValue();
}

/** Sends the files waiting on the upload page ("Upload N files (size)"). */
export async function sendStaged(page: Page): Promise<void> {
  await page.getByRole("button", { name: /^Upload \d+ files? \(/ }).click();
}
