/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * The visits views as the pages use them, loaded on demand: `visits.tsx`
 * (and uPlot with it) is fetched the first time one is shown, so the URLs
 * page, the file panel and the home page carry none of it until then.
 */
import { useEffect, useState } from "preact/hooks";
import type { VisitsDialogProps } from "./visits.tsx";

type VisitsModule = typeof import("./visits.tsx");

let loading: Promise<VisitsModule> | null = null;

/** The visits module, `null` until it has arrived. */
function useVisitsModule(): VisitsModule | null {
  const [views, setViews] = useState<VisitsModule | null>(null);
  useEffect(() => {
    loading ??= import("./visits.tsx");
    loading.then(setViews, () => {
      loading = null; // a failed fetch is tried again next time
    });
  }, []);
  return views;
}

/** The dialog of one short URL's or file's visits. */
export function VisitsDialog(props: VisitsDialogProps) {
  const views = useVisitsModule();
  return views ? <views.VisitsDialog {...props} /> : null;
}

/** The home page's visits summary; `server` adds the server's (administrators). */
export function HomeVisits({ server }: { server: boolean }) {
  const views = useVisitsModule();
  return views ? <views.HomeVisits server={server} /> : null;
}
