import type { MediaLimits } from '@/config/config';
import type { MediaFetch } from './media-fetch';
import type { PlatformName } from '../platform-name';
import type { NetworkCapUsage } from './caps';

/** What a failed target reports to clients as `errorCategory` (the network layer's vocabulary; posts store it). */
export type ErrorCategory =
  'auth_expired' | 'invalid_content' | 'media_rejected' | 'network_rate_limited' | 'network_error' | 'unknown_outcome';

export interface OAuthTokens {
  accessToken: string;
  refreshToken?: string | null;
  /** null = does not expire. */
  expiresAt?: Date | null;
  refreshExpiresAt?: Date | null;
  scopes?: string[];
}

export interface GrantedAccount {
  platformAccountId: string;
  name: string;
  username?: string | null;
  avatarUrl?: string | null;
  /** A per-account token where the network issues one (Facebook Page tokens); else the grant's. */
  tokens?: OAuthTokens;
  metadata?: Record<string, unknown>;
}

export type AccountCredentials = { platformAccountId: string; accessToken: string; metadata: Record<string, unknown> };

export interface PublishContent {
  contentType: 'text' | 'image' | 'video';
  /** Final text for this target (platformCaptions / perAccount already applied). */
  text: string;
  link?: string | null;
  imageUrls: string[];
  videoUrl?: string | null;
  /** Per-platform options (youtube { title, privacyStatus }, tiktok { privacyLevel }…), with perAccount's merged in. */
  options: Record<string, unknown>;
}

export interface PublishRequest {
  account: AccountCredentials;
  content: PublishContent;
  /** Network-side progress saved by earlier (possibly crashed) attempts of this target. */
  publishState: Record<string, unknown>;
  /** Persists progress (container id, upload URL…) before the next network call, for resumes and look-ups. */
  saveState: (state: Record<string, unknown>) => Promise<void>;
}

export type PublishLookup = Omit<PublishRequest, 'saveState'>;
export type PublishResult = { externalId: string; url?: string | null };

/** The account's comment on its own published item (`externalId`: PublishResult's), the post's first comment. */
export type CommentRequest = { account: AccountCredentials; externalId: string; text: string };
export type CommentResult = { id: string };
export type NetworkComment = {
  id: string;
  externalPostId: string;
  authorName: string;
  text: string;
  createdAt: string;
};
export type CommentsPage = { comments: NetworkComment[]; nextCursor: string | null };

export type ValidationIssue = { field: string; message: string };

export type ItemMetrics = Record<'views' | 'likes' | 'comments' | 'shares' | 'reach' | 'engagement', number>;

/** An account's day (`date`: YYYY-MM-DD, UTC): an item's numbers but likes and comments (in engagement), followers. */
export type DailyAccountMetrics = Pick<ItemMetrics, 'views' | 'engagement' | 'shares' | 'reach'> & {
  date: string;
  followers: number;
};

export class PlatformError extends Error {
  constructor(
    message: string,
    readonly category: ErrorCategory,
    readonly retryable: boolean,
    readonly details: { status?: number; networkCode?: string | number; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.name = 'PlatformError';
  }
}

/**
 * The network still processes the item after `processingWaitMs` (TikTok moderation, a video container): the publisher
 * asks `checkProcessing` later, which sees only publishState, so publishState must already hold all it needs. Code
 * that does not know it sees a retryable network_error.
 */
export class StillProcessingError extends PlatformError {
  constructor(message: string) {
    super(message, 'network_error', true);
  }
}

export type ProcessingCheck =
  | { status: 'processing' }
  | { status: 'published'; result: PublishResult }
  /** The network gave up on it (moderation refused it, the media failed): certainly not published. */
  | { status: 'failed'; error: PlatformError }
  /** Processing is over and the publish continues from publishState (e.g. a finished container). */
  | { status: 'ready' };

/** The contract every network's adapter implements; generic code never branches on the platform name. */
export interface PlatformAdapter {
  readonly platform: PlatformName;
  /** Whether listComments reads the network's comments (comment sync, first-comment look-ups). */
  readonly supportsComments: boolean;

  authorizeUrl(params: { state: string; redirectUri: string; codeChallenge: string }): string;
  exchangeCode(params: { code: string; redirectUri: string; codeVerifier: string }): Promise<OAuthTokens>;
  /** Throws PlatformError with category auth_expired when the grant can no longer be refreshed. */
  refresh(tokens: { accessToken: string; refreshToken: string | null }): Promise<OAuthTokens>;
  /** What the grant covers (pages, organisations, channels): a picker chooses among several. */
  listAccounts(tokens: OAuthTokens): Promise<GrantedAccount[]>;

  validate(content: PublishContent): ValidationIssue[];

  publish(req: PublishRequest): Promise<PublishResult>;
  /** After an unknown outcome: the item, null (certainly not published) or 'unknown' (the network cannot tell). */
  findPublished(req: PublishLookup): Promise<PublishResult | null | 'unknown'>;
  /** Networks that throw StillProcessingError: one status call about the saved publishState, never a new publish. */
  checkProcessing?(req: PublishLookup): Promise<ProcessingCheck>;
  /** What a network says of the definition's first cap (content_publishing_limit, creator_info…). */
  publishingUsage?(account: AccountCredentials): Promise<NetworkCapUsage>;
  /** The account's comment on its own item (first comment), where the API allows it; never repeated on its own. */
  postComment?(req: CommentRequest): Promise<CommentResult>;

  getItemMetrics(account: AccountCredentials, externalId: string): Promise<ItemMetrics>;
  getDailyMetrics(account: AccountCredentials, from: string, to: string): Promise<DailyAccountMetrics[]>;
  listComments(account: AccountCredentials, externalPostId: string, cursor?: string | null): Promise<CommentsPage>;
}

/** What an adapter is built with (the real network's URLs, or the sandbox's). */
export interface AdapterEndpoints {
  /** e.g. https://graph.facebook.com/v23.0 — or {PUBLIC_BASE_URL}/sandbox/facebook/v23.0 */
  apiBaseUrl: string;
  /** Where the consent page lives (e.g. https://www.facebook.com/v23.0/dialog/oauth). */
  authBaseUrl: string;
  clientId: string;
  clientSecret: string;
  timeoutMs: number;
  /** How long one attempt waits for the network's processing before StillProcessingError. */
  processingWaitMs?: number;
  /** The registry's SSRF-safe fetch of a post's media URLs (unit tests: undici's global dispatcher). */
  fetchMedia?: MediaFetch;
  /** Size caps and the time limit of those downloads (MEDIA_MAX_*_BYTES, MEDIA_DOWNLOAD_TIMEOUT_MS). */
  mediaLimits: MediaLimits;
}
