/**
 * OAuth links: which external account (provider plus its account id) belongs
 * to which user. Ferry has no OAuth login yet; the links are kept so that an
 * instance moved from Zipline keeps them and exports them again, and so that
 * OAuth login can be built on them.
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

/** OAuth links. */
export interface OauthStore {
  /** Adds a link; throws `UniqueError("oauthId")` when the provider's account is already linked. */
  create(link: OauthLinkRecord): Promise<void>;
  /** The link of `provider`'s account `oauthId` (`null` matches a link without an id), or `null`. */
  find(provider: OauthProvider, oauthId: string | null): Promise<OauthLinkRecord | null>;
  /** A user's links, oldest first. */
  listByUser(userId: string): Promise<OauthLinkRecord[]>;
}
