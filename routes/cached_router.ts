/**
 * The app's router: Hono's (a `SmartRouter`, which settles on its trie
 * router here since some routes put a parameter beside a fixed segment)
 * with its recent answers remembered. A hot short URL or file name then
 * costs one `Map` lookup instead of a walk through every route. An answer
 * depends only on the method, the path and the routes, and Hono only reads
 * it, so one answer serves every request for that path.
 */
import type { Result, Router } from "hono/router";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { SmartRouter } from "hono/router/smart-router";
import { TrieRouter } from "hono/router/trie-router";

/** Answers kept at most; past it they are dropped together. */
const MAX_ANSWERS = 1024;
/** Longer paths are routed afresh each time, so the memory stays small. */
const MAX_PATH = 256;

/** Hono's default router, remembering up to {@link MAX_ANSWERS} answers. */
export class CachedRouter<T> implements Router<T> {
  readonly name = "CachedRouter";
  readonly #router: Router<T> = new SmartRouter({
    routers: [new RegExpRouter(), new TrieRouter()],
  });
  readonly #answers = new Map<string, Result<T>>();

  /** Adds a route; forgets every answer. */
  add(method: string, path: string, handler: T): void {
    this.#answers.clear();
    this.#router.add(method, path, handler);
  }

  /** The handlers for `method` and `path`, remembered for the next time. */
  match(method: string, path: string): Result<T> {
    if (path.length > MAX_PATH) return this.#router.match(method, path);
    const key = `${method} ${path}`;
    let answer = this.#answers.get(key);
    if (answer === undefined) {
      answer = this.#router.match(method, path);
      if (this.#answers.size >= MAX_ANSWERS) this.#answers.clear();
      this.#answers.set(key, answer);
    }
    return answer;
  }
}
