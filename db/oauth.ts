/**
 * OAuth links: which external account (provider plus its account id) belongs
 * to which user, for signing in with the provider (`core/oauth/`). Links
 * Ferry makes hold the provider's tokens encrypted with the server secret.
 */

/** The OAuth providers Zipline v4 knows. */
export const OAUTH_PROVIDERS = ["DISCORD", "GOOGLE", "GITHUB", "OIDC"] as const;
/** An OAuth provider. */
export type OauthProvider = typeof OAUTH_PROVIDERS[number];

/** One user's link to one external account. The tokens are secrets and never leave the server. */
export interface OauthLinkRecord {
  id: string;
  userId: string;
  provider: OauthProvider;
  /** The account's name at the provider. */
  username: string;
  accessToken: string;
  refreshToken: string | null;
  /** The account's id at the provider; `null` when the provider gave none. */
  oauthId: string | null;
  createdAt: Date;
}

/** What {@link OauthStore.removeUnlessLast} did. */
export type RemoveOutcome = "removed" | "missing" | "last";

/** OAuth links. */
export interface OauthStore {
  /** Adds a link; throws `UniqueError("oauthId")` when the provider's account is already linked. */
  create(link: OauthLinkRecord): Promise<void>;
  /** The link of `provider`'s account `oauthId` (`null` matches a link without an id), or `null`. */
  find(provider: OauthProvider, oauthId: string | null): Promise<OauthLinkRecord | null>;
  /** A user's links, oldest first. */
  listByUser(userId: string): Promise<OauthLinkRecord[]>;
  /** Stores fresh tokens and the account's current name on link `id`. */
  refresh(
    id: string,
    fields: Pick<OauthLinkRecord, "username" | "accessToken" | "refreshToken">,
  ): Promise<void>;
  /**
   * Removes the user's links to `provider` in one atomic step, only when at
   * least `keepAtLeast` of the user's other links remain: `"missing"` when
   * there was no such link, `"last"` (nothing removed) when too few others
   * remain. Two removes at once cannot both pass the count.
   */
  removeUnlessLast(
    userId: string,
    provider: OauthProvider,
    keepAtLeast: number,
  ): Promise<RemoveOutcome>;
}
