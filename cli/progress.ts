/**
 * Progress of a long operator command on stderr: a bar redrawn in place on a
 * terminal (records done, rate, time left), plain lines every 10% otherwise.
 */

const seconds = (s: number) =>
  s >= 3600
    ? `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`
    : s >= 60
    ? `${Math.floor(s / 60)}m${Math.round(s % 60)}s`
    : `${Math.round(s)}s`;

/** A progress callback printing to stderr; `label` names what is counted. */
export function progressPrinter(label: string): (done: number, total: number) => void {
  const start = performance.now();
  const tty = Deno.stderr.isTerminal();
  const encoder = new TextEncoder();
  let lastTenth = -1;
  return (done, total) => {
    const elapsed = (performance.now() - start) / 1000;
    const rate = done / Math.max(elapsed, 0.001);
    const left = rate > 0 ? (total - done) / rate : 0;
    const share = total > 0 ? done / total : 1;
    const stats = `${done}/${total} ${label} ${Math.round(rate)}/s ${seconds(left)} left`;
    if (tty) {
      const bar = "#".repeat(Math.round(share * 30)).padEnd(30, ".");
      const end = done >= total ? "\n" : "";
      Deno.stderr.writeSync(
        encoder.encode(`\r[${bar}] ${Math.floor(share * 100)}% ${stats}  ${end}`),
      );
      return;
    }
    const tenth = Math.floor(share * 10);
    if (tenth > lastTenth) {
      lastTenth = tenth;
      console.error(`${Math.floor(share * 100)}% ${stats}`);
    }
  };
}
