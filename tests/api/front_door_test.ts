/**
 * The front door (`routes/front_door.ts`): whoever answers a request, a fast
 * path (redirect, healthcheck, `/raw`) or the app, its answer is finished
 * alike: the CORS header for every origin, and one request log line with the
 * method, path, status and time taken.
 */
import assert from "node:assert/strict";
import { createHandler } from "../../routes/mod.ts";
import { apiTest } from "../helpers/app.ts";
import { uploadOne } from "../helpers/files.ts";
import { actor } from "../helpers/users.ts";

apiTest(
  "front door: every answer, fast path or app, gets the CORS header and one log line",
  async (app) => {
    const alice = await actor(app, "USER");
    const url = await app.json("POST", "/api/user/urls", {
      destination: "https://a.example/",
    }, alice.headers);
    const file = await uploadOne(app, alice.headers, "small bytes", "small.txt", "text/plain");
    const { fetch } = createHandler(app.services, { logRequests: true });
    const get = async (path: string, headers: Record<string, string> = {}) =>
      await fetch(new Request(new URL(path, "http://ferry.test"), { redirect: "manual", headers }));
    const logged = () => app.logger.lines.filter((line) => line.message === "request");

    // Each path twice: the app answers first (and fills the caches), a fast path the second time.
    const paths: [string, number][] = [
      [`/go/${url.body.code}`, 302],
      ["/api/healthcheck", 200],
      [`/raw/${file.name}`, 200],
      ["/api/user", 200],
    ];
    for (const [path, status] of paths) {
      for (const round of ["first", "second"]) {
        const before = logged().length;
        const response = await get(path, alice.headers);
        await response.body?.cancel();
        assert.equal(response.status, status, `${path}, ${round}`);
        assert.equal(response.headers.get("access-control-allow-origin"), "*", `${path}, ${round}`);
        const lines = logged().slice(before);
        assert.equal(lines.length, 1, `${path}, ${round}: one log line`);
        const { ms, ...fields } = lines[0].fields!;
        assert.deepEqual(fields, { method: "GET", path, status }, `${path}, ${round}`);
        assert.equal(typeof ms, "number");
      }
    }
  },
);
