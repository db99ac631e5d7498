/**
 * The one catalogue of error codes. The filter, the OpenAPI document and the /errors page are
 * generated from it; modules throw `new ApiError(code, …)` and never pick a status themselves.
 */
export interface ErrorSpec {
  status: number;
  message: string;
  description: string;
  retryable: boolean;
}

export const ERROR_CATALOGUE = {
  invalid_request: {
    status: 400,
    message: 'The request is invalid.',
    description: 'Body or query failed validation; the message names the field.',
    retryable: false,
  },
  invalid_profile_id: {
    status: 400,
    message: 'profileId must be a string.',
    description: 'profileId supplied but not a string.',
    retryable: false,
  },
  invalid_scheduled_at: {
    status: 400,
    message: 'scheduledAt must be an ISO 8601 date-time in the future.',
    description: 'scheduledAt not parseable as ISO 8601 or in the past.',
    retryable: false,
  },
  invalid_state_transition: {
    status: 400,
    message: "The post's state does not allow this operation.",
    description: "Post's state does not allow the operation.",
    retryable: false,
  },
  key_not_linked_to_user: {
    status: 400,
    message: 'This API key has no owner; publishing needs a human actor.',
    description: 'Key has no owner; publishing needs one.',
    retryable: false,
  },
  authentication_required: {
    status: 401,
    message: 'Send your API key as "Authorization: Bearer <API_KEY>".',
    description: 'No Authorization header or not Bearer.',
    retryable: false,
  },
  invalid_api_key: {
    status: 401,
    message: 'The API key is unknown, revoked or malformed.',
    description: 'Key unknown, revoked or malformed.',
    retryable: false,
  },
  api_key_expired: {
    status: 401,
    message: 'The API key has expired.',
    description: 'Key past expiresAt.',
    retryable: false,
  },
  trial_expired: {
    status: 402,
    message: 'The trial of this workspace has ended; choose a plan to continue.',
    description: 'Account trial ended.',
    retryable: false,
  },
  insufficient_permission: {
    status: 403,
    message: 'The API key lacks the permission this endpoint requires.',
    description: 'Key lacks the needed scope; details.required names it.',
    retryable: false,
  },
  profile_not_accessible: {
    status: 403,
    message: 'The profile is outside the scope of this API key.',
    description: "Profile outside key's scope or another account's.",
    retryable: false,
  },
  plan_limit: {
    status: 403,
    message: 'The plan of this workspace does not allow this.',
    description: 'Plan quota exhausted or feature not in the plan; details carry entitlement, usage, limit.',
    retryable: false,
  },
  account_not_allowed: {
    status: 403,
    message: 'The API key is not allowed to use this account.',
    description: 'Key restricted to accounts and a supplied accountId is not among them.',
    retryable: false,
  },
  platform_not_allowed: {
    status: 403,
    message: "The profile's policy does not allow this platform.",
    description: 'Profile policy excludes the platform of a target.',
    retryable: false,
  },
  approval_required: {
    status: 403,
    message: 'Review is required and no approver can be determined.',
    description: 'Review is forced and no approver can be determined.',
    retryable: false,
  },
  daily_post_limit: {
    status: 403,
    message: 'The daily post limit of this API key is reached.',
    description: "Key's maxPostsPerDay reached; resets at midnight UTC. details carry limit, used, resetsAt.",
    retryable: false,
  },
  not_found: {
    status: 404,
    message: 'No such resource.',
    description: 'Resource absent inside the resolved profile.',
    retryable: false,
  },
  no_accounts_connected: {
    status: 404,
    message: 'The profile has no connected accounts.',
    description: 'Profile has no connected accounts.',
    retryable: false,
  },
  accounts_not_found: {
    status: 404,
    message: 'None of the supplied account ids matched a connected account.',
    description: 'None of the supplied accountIds matched.',
    retryable: false,
  },
  idempotency_key_reused: {
    status: 409,
    message: 'This Idempotency-Key was already used with a different request.',
    description: 'Idempotency-Key used with a different body.',
    retryable: false,
  },
  idempotency_key_in_use: {
    status: 409,
    message: 'A request with this Idempotency-Key is still being processed.',
    description: 'Another request with the same Idempotency-Key is still running; retry after Retry-After.',
    retryable: true,
  },
  profile_has_connected_accounts: {
    status: 409,
    message: 'Disconnect the accounts of this profile before deleting it.',
    description: 'Profile deleted while accounts remain connected.',
    retryable: false,
  },
  payload_too_large: {
    status: 413,
    message: 'The request body is too large.',
    description: 'A body over the size limit.',
    retryable: false,
  },
  unsupported_media_type: {
    status: 415,
    message: 'This file type is not accepted.',
    description: 'fileType not an accepted image or video type.',
    retryable: false,
  },
  rate_limit_exceeded: {
    status: 429,
    message: 'Too many requests for this API key; retry after the Retry-After header.',
    description: 'Too many requests for the key; honour Retry-After.',
    retryable: true,
  },
  internal_error: {
    status: 500,
    message: 'Something went wrong on our side; retry with the same Idempotency-Key.',
    description: 'Server failure.',
    retryable: true,
  },
  service_unavailable: {
    status: 503,
    message: 'A backing service is unavailable; retry shortly.',
    description: 'Postgres or Redis unreachable.',
    retryable: true,
  },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

/** Shapes of `error.details` for the codes that carry them. */
export interface ErrorDetailsByCode {
  plan_limit: { entitlement: string; usage: number; limit: number };
  insufficient_permission: { required: string };
  daily_post_limit: { limit: number; used: number; resetsAt: string };
  invalid_request: { field?: string; errors?: unknown[] };
}

export type ErrorDetails<C extends ErrorCode> = C extends keyof ErrorDetailsByCode
  ? ErrorDetailsByCode[C]
  : Record<string, unknown>;
