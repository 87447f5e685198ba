/**
 * The PostgreSQL migrations, in order. Each is applied once, in its own
 * transaction, and recorded in `schema_migrations`. Never edit one that has
 * shipped: add the next.
 */
import { sql as init } from "./001_init.ts";
import { sql as settingsAudit } from "./002_settings_audit.ts";
import { sql as rateLimits } from "./003_rate_limits.ts";
import { sql as mfa } from "./004_mfa.ts";
import { sql as files } from "./005_files.ts";
import { sql as urlsInvites } from "./006_urls_invites.ts";
import { sql as webhooks } from "./007_webhooks.ts";
import { sql as unloggedRateLimits } from "./008_unlogged_rate_limits.ts";
import { sql as oauthMetrics } from "./009_oauth_metrics.ts";
import { sql as foldersTags } from "./010_folders_tags.ts";
import { sql as chunkedUploadsLeases } from "./011_chunked_uploads_leases.ts";
import { sql as rateLimitsPrev } from "./012_rate_limits_prev.ts";
import { sql as userExports } from "./013_user_exports.ts";
import { sql as fileThumbnails } from "./014_file_thumbnails.ts";
import { sql as rateLimitCounting } from "./015_rate_limit_counting.ts";
import { sql as chunkReservations } from "./016_chunk_reservations.ts";
import { sql as sessionLastSeen } from "./017_session_last_seen.ts";
import { sql as webhookHistory } from "./018_webhook_history.ts";
import { sql as fileListing } from "./019_file_listing.ts";
import { sql as leaseClaims } from "./020_lease_claims.ts";
import { sql as sessionMethod } from "./021_session_method.ts";
import { sql as apiKeys } from "./022_api_keys.ts";
import { sql as privateFiles } from "./023_private_files.ts";
import { sql as shares } from "./024_shares.ts";
import { sql as uploadRequests } from "./025_upload_requests.ts";
import { sql as tusUploads } from "./026_tus_uploads.ts";
import { sql as fileCounts } from "./027_file_counts.ts";
import { sql as fileListOrders } from "./028_file_list_orders.ts";
import { sql as fileSearch } from "./029_file_search.ts";
import { sql as urlRules } from "./030_url_rules.ts";
import { sql as visits } from "./031_visits.ts";
import { sql as visitGroups } from "./032_visit_groups.ts";
import { sql as fileTaskIndexes } from "./033_file_task_indexes.ts";
import { sql as fileListFilters } from "./034_file_list_filters.ts";
import { sql as urlTaskIndex } from "./035_url_task_index.ts";
import { sql as fileRecounts } from "./036_file_recounts.ts";
import { sql as visitSketches } from "./037_visit_sketches.ts";
import { sql as fileTagsByTag } from "./038_file_tags_by_tag.ts";
import { sql as visitPacks } from "./039_visit_packs.ts";
import { sql as fileOrdersShared } from "./040_file_orders_shared.ts";
import { sql as fileTimeBlocks } from "./041_file_time_blocks.ts";
import { sql as fileFolderIndexGone } from "./042_file_folder_index_gone.ts";
import { sql as fileNameBlocks } from "./043_file_name_blocks.ts";
import { sql as fileFolderCounts } from "./044_file_folder_counts.ts";
import { sql as tagFileCounts } from "./045_tag_file_counts.ts";
import { sql as fileMostViewed } from "./046_file_most_viewed.ts";
import { sql as fileTagOrders } from "./047_file_tag_orders.ts";
import { sql as fileListFewerIndexes } from "./048_file_list_fewer_indexes.ts";

/** One versioned migration. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Every migration, oldest first. */
export const MIGRATIONS: Migration[] = [
  { version: 1, name: "init", sql: init },
  { version: 2, name: "settings_audit", sql: settingsAudit },
  { version: 3, name: "rate_limits", sql: rateLimits },
  { version: 4, name: "mfa", sql: mfa },
  { version: 5, name: "files", sql: files },
  { version: 6, name: "urls_invites", sql: urlsInvites },
  { version: 7, name: "webhooks", sql: webhooks },
  { version: 8, name: "unlogged_rate_limits", sql: unloggedRateLimits },
  { version: 9, name: "oauth_metrics", sql: oauthMetrics },
  { version: 10, name: "folders_tags", sql: foldersTags },
  { version: 11, name: "chunked_uploads_leases", sql: chunkedUploadsLeases },
  { version: 12, name: "rate_limits_prev", sql: rateLimitsPrev },
  { version: 13, name: "user_exports", sql: userExports },
  { version: 14, name: "file_thumbnails", sql: fileThumbnails },
  { version: 15, name: "rate_limit_counting", sql: rateLimitCounting },
  { version: 16, name: "chunk_reservations", sql: chunkReservations },
  { version: 17, name: "session_last_seen", sql: sessionLastSeen },
  { version: 18, name: "webhook_history", sql: webhookHistory },
  { version: 19, name: "file_listing", sql: fileListing },
  { version: 20, name: "lease_claims", sql: leaseClaims },
  { version: 21, name: "session_method", sql: sessionMethod },
  { version: 22, name: "api_keys", sql: apiKeys },
  { version: 23, name: "private_files", sql: privateFiles },
  { version: 24, name: "shares", sql: shares },
  { version: 25, name: "upload_requests", sql: uploadRequests },
  { version: 26, name: "tus_uploads", sql: tusUploads },
  { version: 27, name: "file_counts", sql: fileCounts },
  { version: 28, name: "file_list_orders", sql: fileListOrders },
  { version: 29, name: "file_search", sql: fileSearch },
  { version: 30, name: "url_rules", sql: urlRules },
  { version: 31, name: "visits", sql: visits },
  { version: 32, name: "visit_groups", sql: visitGroups },
  { version: 33, name: "file_task_indexes", sql: fileTaskIndexes },
  { version: 34, name: "file_list_filters", sql: fileListFilters },
  { version: 35, name: "url_task_index", sql: urlTaskIndex },
  { version: 36, name: "file_recounts", sql: fileRecounts },
  { version: 37, name: "visit_sketches", sql: visitSketches },
  { version: 38, name: "file_tags_by_tag", sql: fileTagsByTag },
  { version: 39, name: "visit_packs", sql: visitPacks },
  { version: 40, name: "file_orders_shared", sql: fileOrdersShared },
  { version: 41, name: "file_time_blocks", sql: fileTimeBlocks },
  { version: 42, name: "file_folder_index_gone", sql: fileFolderIndexGone },
  { version: 43, name: "file_name_blocks", sql: fileNameBlocks },
  { version: 44, name: "file_folder_counts", sql: fileFolderCounts },
  { version: 45, name: "tag_file_counts", sql: tagFileCounts },
  { version: 46, name: "file_most_viewed", sql: fileMostViewed },
  { version: 47, name: "file_tag_orders", sql: fileTagOrders },
  { version: 48, name: "file_list_fewer_indexes", sql: fileListFewerIndexes },
];
