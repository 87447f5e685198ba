/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * The dashboard's browser code, bundled by `deno task bundle` into
 * `routes/web/assets/dashboard.js`. The server renders each page's frame with
 * `<div id="app" data-page="…" data-config="…">`; this mounts that page's
 * component in it, and the toasts and the confirmation modal in the frame.
 */
import { render } from "preact";
import { readConfig } from "./config.ts";
import { mountFeedback, warnDeletion } from "./components/feedback.tsx";
import { AccountPage } from "./pages/account.tsx";
import { AdminAuditPage } from "./pages/admin_audit.tsx";
import { AdminMaintenancePage } from "./pages/admin_maintenance.tsx";
import { AdminTransferPage } from "./pages/admin_transfer.tsx";
import { AdminWebhooksPage } from "./pages/admin_webhooks.tsx";
import { AdminSettingsPage } from "./pages/admin_settings.tsx";
import { AdminUsersPage } from "./pages/admin_users.tsx";
import { FilesPage } from "./pages/files/page.tsx";
import { FoldersPage } from "./pages/folders.tsx";
import { HomePage } from "./pages/home.tsx";
import { PublicFolderPage } from "./pages/public_folder.tsx";
import { RequestUploadPage } from "./pages/request.tsx";
import { RequestsPage } from "./pages/requests.tsx";
import { SecurityPage } from "./pages/security.tsx";
import { StatsPage } from "./pages/stats.tsx";
import { TagsPage } from "./pages/tags.tsx";
import { UploadPage } from "./pages/upload.tsx";
import { UrlsPage } from "./pages/urls.tsx";

const root = document.getElementById("app");
if (root) {
  const config = readConfig(root);
  warnDeletion.value = config.warnDeletion ?? true;
  mountFeedback();
  const pages = {
    home: () => <HomePage config={config} />,
    upload: () => <UploadPage config={config} />,
    "upload-text": () => <UploadPage config={config} text />,
    files: () => <FilesPage />,
    urls: () => <UrlsPage config={config} />,
    account: () => <AccountPage config={config} site={config.site} />,
    security: () => <SecurityPage config={config} />,
    folders: () => <FoldersPage />,
    tags: () => <TagsPage config={config} />,
    folder: () => <PublicFolderPage config={config} id={config.id ?? ""} />,
    request: () => <RequestUploadPage config={config} />,
    requests: () => <RequestsPage />,
    users: () => <AdminUsersPage config={config} />,
    "server-settings": () => <AdminSettingsPage />,
    audit: () => <AdminAuditPage />,
    stats: () => <StatsPage config={config} />,
    transfer: () => <AdminTransferPage />,
    maintenance: () => <AdminMaintenancePage />,
    webhooks: () => <AdminWebhooksPage />,
  };
  const page = pages[root.dataset.page as keyof typeof pages];
  if (page) {
    root.replaceChildren();
    render(page(), root);
  }
}
