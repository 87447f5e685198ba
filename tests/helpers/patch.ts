/** Swapping one method of a live object for a test, and putting it back. */
import type { FileStore } from "../../db/files.ts";

/** Replaces `target[method]` with `fn` until the returned function is called. */
export function patchMethod<T extends object, K extends keyof T>(
  target: T,
  method: K,
  fn: T[K],
): () => void {
  const before = Object.getOwnPropertyDescriptor(target, method);
  target[method] = fn;
  return () => {
    if (before) Object.defineProperty(target, method, before);
    else delete target[method];
  };
}

/**
 * Makes the store method `method` of `files` land its commit and then throw
 * as a lost connection does (its answer lost), until the returned function is called.
 */
export function answerLost<K extends "create" | "complete">(
  files: FileStore,
  method: K,
): () => void {
  const original = (files[method] as (...args: unknown[]) => Promise<unknown>).bind(files);
  return patchMethod(
    files,
    method,
    (async (...args: unknown[]) => {
      await original(...args);
      throw Object.assign(new Error("write CONNECTION_CLOSED"), { code: "CONNECTION_CLOSED" });
    }) as FileStore[K],
  );
}
