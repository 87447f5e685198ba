/// <reference lib="dom" />
/** Preact hooks the dashboard's pages share. */
import { useEffect, useState } from "preact/hooks";
import { api } from "./api.ts";

/**
 * `GET path`'s answer (`null` until it arrives), a `reload` that asks again,
 * and the failure's message, if any.
 */
export function useApi<T>(path: string): [T | null, () => void, string | null] {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    api<T>("GET", path).then((d) => {
      setData(d);
      setError(null);
    }, (e: Error) => setError(e.message));
  }, [path, version]);
  return [data, () => setVersion((v) => v + 1), error];
}

/**
 * What `load` answers (`null` until it arrives), a `reload` that asks again,
 * and the failure's message, if any; `load` runs again when `key` changes.
 */
export function useLoad<T>(
  load: () => Promise<T>,
  key: readonly unknown[] = [],
): [T | null, () => void, string | null] {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    load().then((d) => {
      setData(d);
      setError(null);
    }, (e: Error) => setError(e.message));
  }, [...key, version]);
  return [data, () => setVersion((v) => v + 1), error];
}
