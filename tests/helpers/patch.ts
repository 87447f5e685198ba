/** Swapping one method of a live object for a test, and putting it back. */

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
