/** The order KV lists are returned in: oldest first, ties by id (as PostgreSQL's `ORDER BY created_at, id`). */
export function oldestFirst(
  a: { createdAt: Date; id: string },
  b: { createdAt: Date; id: string },
) {
  return a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
