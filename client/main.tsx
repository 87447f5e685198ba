/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * The dashboard's browser code, bundled by `deno task bundle` into
 * `routes/web/assets/dashboard.js`. The server renders each page's frame with
 * `<div id="app" data-page="…" data-config="…">`; this mounts that page's
 * component in it, and the toasts and the confirmation modal in the frame.
 * Each page is imported dynamically, so a page's code (uPlot for the
 * statistics, the QR codes, the settings forms…) loads with that page only
 * (`tools/bundle.ts`: one chunk per page, what pages share in chunks of
 * their own).
 */
import { type JSX, render } from "preact";
import { readConfig } from "./config.ts";
import { mountFeedback, warnDeletion } from "./components/feedback.tsx";
import { noMediaPreview } from "./components/file_thumb.tsx";
const root = document.getElementById("app");
if (root) {
  const config = readConfig(root);
  warnDeletion.value = config.warnDeletion ?? true;
  noMediaPreview.value = config.disableMediaPreview ?? false;
  mountFeedback();
  const pages: Record<string, () => Promise<JSX.Element>> = {
    home: () => import("./pages/home.tsx").then((m) => <m.HomePage config={config} />),
    upload: () => import("./pages/upload.tsx").then((m) => <m.UploadPage config={config} />),
    "upload-text": () =>
      import("./pages/upload.tsx").then((m) => <m.UploadPage config={config} text />),
    files: () => import("./pages/files/page.tsx").then((m) => <m.FilesPage />),
    urls: () => import("./pages/urls.tsx").then((m) => <m.UrlsPage config={config} />),
    account: () =>
      import("./pages/account.tsx").then((m) => (
        <m.AccountPage config={config} site={config.site} />
      )),
    security: () => import("./pages/security.tsx").then((m) => <m.SecurityPage config={config} />),
    folders: () => import("./pages/folders.tsx").then((m) => <m.FoldersPage />),
    tags: () => import("./pages/tags.tsx").then((m) => <m.TagsPage />),
    invites: () => import("./pages/invites.tsx").then((m) => <m.InvitesPage />),
    folder: () =>
      import("./pages/public_folder.tsx").then((m) => (
        <m.PublicFolderPage config={config} id={config.id ?? ""} />
      )),
    request: () =>
      import("./pages/request.tsx").then((m) => <m.RequestUploadPage config={config} />),
    requests: () => import("./pages/requests.tsx").then((m) => <m.RequestsPage />),
    users: () =>
      import("./pages/admin_users.tsx").then((m) => <m.AdminUsersPage config={config} />),
    "server-settings": () =>
      import("./pages/admin_settings.tsx").then((m) => <m.AdminSettingsPage />),
    audit: () => import("./pages/admin_audit.tsx").then((m) => <m.AdminAuditPage />),
    stats: () => import("./pages/stats.tsx").then((m) => <m.StatsPage config={config} />),
    transfer: () =>
      import("./pages/admin_transfer.tsx").then((m) => <m.AdminTransferPage config={config} />),
    maintenance: () =>
      import("./pages/admin_maintenance.tsx").then((m) => <m.AdminMaintenancePage />),
    webhooks: () => import("./pages/admin_webhooks.tsx").then((m) => <m.AdminWebhooksPage />),
  };
  const page = pages[root.dataset.page ?? ""];
  if (page) {
    page().then((element) => {
      root.replaceChildren();
      render(element, root);
    });
  }
}
