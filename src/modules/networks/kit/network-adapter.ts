import type { PlatformName } from '../platform-name';
import { PlatformError } from './adapter';
import type { CommentsPage, PlatformAdapter, PublishContent, PublishLookup, PublishRequest } from './adapter';
import type { PublishResult, ValidationIssue } from './adapter';
import { checkContent, ContentRules } from './content-rules';

/** Consent, code exchange and refresh: an OAuth2App, Facebook Login or a network's own token flow. */
export type NetworkLogin = Pick<PlatformAdapter, 'authorizeUrl' | 'exchangeCode' | 'refresh'>;

/** The base of every adapter (or of GraphAdapter): it writes only what its network does its own way. */
export abstract class NetworkAdapter {
  abstract readonly platform: PlatformName;
  readonly supportsComments: boolean = false;
  protected abstract readonly rules: ContentRules;

  constructor(
    protected readonly login: NetworkLogin,
    protected readonly pollDelaysMs: number[] = [],
  ) {}

  readonly authorizeUrl: NetworkLogin['authorizeUrl'] = (params) => this.login.authorizeUrl(params);
  readonly exchangeCode: NetworkLogin['exchangeCode'] = (params) => this.login.exchangeCode(params);
  readonly refresh: NetworkLogin['refresh'] = (tokens) => this.login.refresh(tokens);

  validate(content: PublishContent): ValidationIssue[] {
    return checkContent(this.rules, content);
  }

  listComments(..._request: Parameters<PlatformAdapter['listComments']>): Promise<CommentsPage> {
    const message = `Comments are not available for ${this.rules.label} accounts.`;
    return Promise.reject(new PlatformError(message, 'invalid_content', false));
  }

  abstract findPublished(req: PublishLookup): Promise<PublishResult | null | 'unknown'>;

  /**
   * Before resending a creating call sent at `sentAt` whose answer was lost: what findPublished finds, or null
   * (send again); 'unknown' throws unknown_outcome, not retried.
   */
  protected async lookBeforeResending(req: PublishRequest, sentAt: string | undefined, cannotTell?: string) {
    if (!sentAt) return null;
    const found = await this.findPublished(req);
    const message = cannotTell ?? `An earlier attempt may have published this post; ${this.rules.label} cannot tell.`;
    if (found === 'unknown') throw new PlatformError(message, 'unknown_outcome', false);
    return found;
  }
}

/** The waits between status checks within one attempt of an adapter that polls (tests shorten them). */
export type PollingOptions = { pollDelaysMs?: number[] };

/** A publish's saved progress: a copy of publishState; `save(patch)` merges and persists it before the next call. */
export type Progress<S> = { state: S; save: (patch?: Partial<S>) => Promise<void> };

export function progress<S extends object>(req: PublishRequest): Progress<S> {
  const state = { ...req.publishState } as S;
  return { state, save: (patch = {}) => req.saveState({ ...Object.assign(state, patch) }) };
}
