import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In } from 'typeorm';
import type { AuthContext } from '@/common/auth/auth-context';
import type { Actor } from '@/common/outbox/event.entity';
import { isUuid } from '@/common/auth/auth.service';
import { ApiError } from '@/common/errors/api-error';
import type { PageWindow } from '@/common/pagination/pagination';
import { AccountsService, ActiveAccount } from '@/modules/accounts/accounts.service';
import { EffectivePolicy, PolicyService } from '@/modules/policy/policy.service';
import type { PlatformName } from '@/modules/networks/platform-name';
import { PostCountEntity, PostPlatformCountEntity } from '../entities/post-count.entity';
import { PostHistoryEntity } from '../entities/post-history.entity';
import { PostTargetEntity } from '../entities/post-target.entity';
import { ContentType, PostEntity, PostState } from '../entities/post.entity';
import { POST_DTO_FIELDS, TARGET_DTO_FIELDS } from '../post-mapper';
import { isPostInScope, PostScope, postScopeCondition } from '../post-scope';
import { capsCtesSql, PostCaps, PostUsage, postUsageSql } from './post-usage';
import { plainQuery, preparedQuery, sqlParams } from '@/database/plain-query';

export interface PostFilters {
  state?: PostState;
  contentType?: ContentType;
  platform?: PlatformName;
}

export type { ActiveAccount };

/** The list reads what the response needs (post-mapper.ts), and each target's post to group them by. */
const LISTED_POST_COLUMNS = POST_DTO_FIELDS;
const LISTED_TARGET_COLUMNS = [...TARGET_DTO_FIELDS, 'postId'] as const;
export type ListedPost = Pick<PostEntity, (typeof LISTED_POST_COLUMNS)[number]>;
export type ListedTarget = Pick<PostTargetEntity, (typeof LISTED_TARGET_COLUMNS)[number]>;

/** The posts module's queries; every read by id is scoped to the caller's profile. */
@Injectable()
export class PostsRepository {
  constructor(
    private readonly ds: DataSource,
    private readonly accounts: AccountsService,
    private readonly policies: PolicyService,
  ) {}

  /**
   * A post of the caller's profile that the key may see (post-scope.ts), optionally locked FOR
   * UPDATE; 404 otherwise (ids of other profiles, or of other accounts for restricted keys, included).
   */
  async findInProfile(
    auth: Pick<AuthContext, 'workspaceId' | 'profileId'> & Partial<PostScope>,
    id: string,
    m: EntityManager = this.ds.manager,
    lock = false,
  ): Promise<PostEntity> {
    if (!isUuid(id)) throw ApiError.notFound('post', id);
    const post = await m.findOne(PostEntity, {
      where: { id, profileId: auth.profileId, workspaceId: auth.workspaceId },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (!post || !(await isPostInScope(m, { accountIds: auth.accountIds ?? null }, post.id)))
      throw ApiError.notFound('post', id);
    return post;
  }

  /** For jobs: the post by id, locked; null when gone. */
  async lockById(m: EntityManager, id: string): Promise<PostEntity | null> {
    return m.findOne(PostEntity, { where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  async targetsOf(postIds: string[], m: EntityManager = this.ds.manager): Promise<PostTargetEntity[]> {
    if (postIds.length === 0) return [];
    // Targets of one post share created_at (one transaction): platform and page name make the order stable.
    return m.find(PostTargetEntity, {
      where: { postId: In(postIds) },
      order: { createdAt: 'ASC', platform: 'ASC', pageName: 'ASC', id: 'ASC' },
    });
  }

  /**
   * One page of a profile's posts, newest first, and the total. Each filter keeps to an index
   * (profile_id[, state | content_type], created_at); the platform filter is an EXISTS on
   * post_targets (profile_id, platform, post_id). The total is exact and does not depend on
   * the number of posts: it sums the trigger-kept counter rows (see countPosts). For a key
   * restricted to accounts, the page and the total both keep to the posts it may see.
   */
  async page(
    profileId: string,
    filters: PostFilters,
    window: PageWindow,
    scope: PostScope = { accountIds: null },
  ): Promise<{ rows: ListedPost[]; total: number }> {
    // Plain SQL into plain rows named as the entity's properties (no query building or hydration:
    // the list is the hottest read).
    const { values: params, bind } = sqlParams(profileId);
    const where = ['p.profile_id = $1'];
    if (filters.state) where.push(`p.state = ${bind(filters.state)}`);
    if (filters.contentType) where.push(`p.content_type = ${bind(filters.contentType)}`);
    if (filters.platform) {
      where.push(
        `EXISTS (SELECT 1 FROM post_targets t WHERE t.profile_id = p.profile_id AND t.platform = ${bind(filters.platform)} AND t.post_id = p.id)`,
      );
    }
    if (scope.accountIds) where.push(postScopeCondition('p', bind(scope.accountIds)));
    const conditions = where.join(' AND ');
    const filterParams = [...params];
    const pageSql = `SELECT ${this.columns(PostEntity, 'p', LISTED_POST_COLUMNS)} FROM posts p WHERE ${conditions}
      ORDER BY p.created_at DESC, p.id DESC LIMIT ${bind(window.limit)} OFFSET ${bind(window.offset)}`;
    const [rows, total] = await Promise.all([
      plainQuery<ListedPost>(this.ds, pageSql, params),
      scope.accountIds
        ? plainQuery<{ n: number }>(
            this.ds,
            `SELECT count(*)::int AS n FROM posts p WHERE ${conditions}`,
            filterParams,
          ).then((r) => r[0]?.n ?? 0)
        : this.countPosts(profileId, filters),
    ]);
    return { rows, total };
  }

  /**
   * The targets of a page of posts, in targetsOf's order, as plain rows named as the entity's
   * properties (read-only: for the list's response, never to be saved).
   */
  async pageTargets(postIds: string[]): Promise<ListedTarget[]> {
    if (postIds.length === 0) return [];
    return plainQuery<ListedTarget>(
      this.ds,
      `SELECT ${this.columns(PostTargetEntity, 't', LISTED_TARGET_COLUMNS)} FROM post_targets t WHERE t.post_id = ANY($1::uuid[])
        ORDER BY t.created_at ASC, t.platform ASC, t.page_name ASC, t.id ASC`,
      [postIds],
    );
  }

  private readonly selectLists = new Map<string, string>();

  /** `alias."column" AS "property"` for the entity's named properties (computed once per entity, alias and list). */
  private columns(
    entity: typeof PostEntity | typeof PostTargetEntity,
    alias: string,
    props: readonly string[],
  ): string {
    const key = `${entity.name}:${alias}:${props.join(',')}`;
    let list = this.selectLists.get(key);
    if (!list) {
      list = props
        .map((prop) => {
          const column = this.ds.getMetadata(entity).findColumnWithPropertyName(prop);
          if (!column) throw new Error(`No column for ${prop}`);
          return `${alias}."${column.databaseName}" AS "${prop}"`;
        })
        .join(', ');
      this.selectLists.set(key, list);
    }
    return list;
  }

  /**
   * The exact number of a profile's posts matching the filters, summed from post_counts (or
   * post_platform_counts with a platform): at most 528 rows per profile (11 states x 3 content
   * types x 16 shards, per platform), read through their primary key, however many posts there
   * are. The triggers of migrations PostCounts and PostCountShards keep them in step with posts
   * and post_targets.
   */
  async countPosts(profileId: string, filters: PostFilters): Promise<number> {
    const { values: params, bind } = sqlParams(profileId);
    const where = ['c.profile_id = $1'];
    if (filters.platform) where.push(`c.platform = ${bind(filters.platform)}`);
    if (filters.state) where.push(`c.state = ${bind(filters.state)}`);
    if (filters.contentType) where.push(`c.content_type = ${bind(filters.contentType)}`);
    const table = this.ds.getMetadata(filters.platform ? PostPlatformCountEntity : PostCountEntity).tableName;
    const [row] = await this.ds.query<{ n: number }[]>(
      `SELECT coalesce(sum(c.n), 0)::int AS n FROM ${table} c WHERE ${where.join(' AND ')}`,
      params,
    );
    return row?.n ?? 0;
  }

  async history(postId: string): Promise<PostHistoryEntity[]> {
    return this.ds.getRepository(PostHistoryEntity).find({ where: { postId }, order: { at: 'ASC' } });
  }

  /**
   * What a creation reads before its insert, in one round trip on its transaction: the profile's
   * policy in force (the policy module's), the caller's usage counters (`usage`; zeros otherwise)
   * and the profile's active accounts (the accounts module's).
   */
  async creationContext(
    m: EntityManager,
    auth: Pick<AuthContext, 'workspaceId' | 'profileId' | 'keyId'>,
    usage: boolean,
  ): Promise<{ policy: EffectivePolicy; usage: PostUsage; active: ActiveAccount[] }> {
    // Prepared (once per creation, as is insertCreated): parsed and planned once per connection.
    const {
      rows: [row],
    } = await preparedQuery<PostUsage & { policy: Omit<EffectivePolicy, 'profileId'> | null; active: ActiveAccount[] }>(
      m,
      `SELECT ${this.policies.effectiveSql('$1')} AS policy, ${this.accounts.activeSql('$2', '$1')} AS active,
              ${usage ? postUsageSql('$2', '$3') : '0 AS month, 0 AS day'}`,
      usage ? [auth.profileId, auth.workspaceId, auth.keyId] : [auth.profileId, auth.workspaceId],
    );
    return {
      policy: this.policies.effectiveFrom(auth.profileId, row.policy),
      usage: { month: row.month, day: row.day },
      active: row.active,
    };
  }

  /**
   * A new post, its targets (in this order), its first history row (from nothing to its state)
   * and what `events` embeds (the outbox's INSERT, given the condition it is written on), in one
   * statement on the caller's transaction (or alone). The targets and the history row select from
   * the inserted post, so the posts triggers (usage, counts) fire before the post_targets one, in
   * the lock order every other write keeps. `caps`: checked in the statement (capsCtesSql), which
   * then writes nothing when the post does not fit. Answers what the database filled in (null when
   * the caps refused the post) and, with `caps`, the usage before this post.
   */
  async insertCreated(
    m: EntityManager,
    post: PostEntity,
    targets: PostTargetEntity[],
    first: { reason: string; actor: Actor; events: (bind: (value: unknown) => string, when: string) => string },
    caps?: PostCaps | null,
  ): Promise<{ inserted: Pick<PostEntity, 'version' | 'createdAt' | 'updatedAt'> | null; usage: PostUsage | null }> {
    const { values, bind } = sqlParams();
    const guard = caps ? capsCtesSql(caps, bind) : null;
    const id = bind(post.id);
    const column = <T>(f: (t: PostTargetEntity) => T): string => bind(targets.map(f));
    const {
      rows: [row],
    } = await preparedQuery<{
      version: number | null;
      createdAt: Date | null;
      updatedAt: Date | null;
      month: number | null;
      day: number | null;
    }>(
      m,
      `WITH ${guard ? `${guard.ctes}, ` : ''}p AS (
         INSERT INTO posts (id, workspace_id, profile_id, state, content_type, message, caption, content, scheduled_at,
                            created_by_key_id, created_by_user_id, approved_by_user_id, rejection_reason, published_at)
         SELECT ${id}::uuid, ${bind(post.workspaceId)}::uuid, ${bind(post.profileId)}::uuid, ${bind(post.state)}::text, ${bind(post.contentType)}::text,
                ${bind(post.message)}::text, ${bind(post.caption)}::text, ${bind(JSON.stringify(post.content))}::jsonb, ${bind(post.scheduledAt)}::timestamptz,
                ${bind(post.createdByKeyId)}::uuid, ${bind(post.createdByUserId)}::uuid, ${bind(post.approvedByUserId)}::uuid,
                ${bind(post.rejectionReason)}::text, ${bind(post.publishedAt)}::timestamptz
         ${guard ? `FROM usage WHERE ${guard.passes}` : ''}
         RETURNING version, created_at, updated_at
       ), t AS (
         INSERT INTO post_targets (id, post_id, profile_id, account_id, platform, page_name, status)
         SELECT t.id, ${id}, t.profile_id, t.account_id, t.platform, t.page_name, t.status
           FROM p, unnest(${column((t) => t.id)}::uuid[], ${column((t) => t.profileId)}::uuid[], ${column((t) => t.accountId)}::uuid[],
                          ${column((t) => t.platform)}::text[], ${column((t) => t.pageName)}::text[], ${column((t) => t.status)}::text[])
                   WITH ORDINALITY AS t(id, profile_id, account_id, platform, page_name, status, n)
          ORDER BY t.n
       ), h AS (
         INSERT INTO post_history (post_id, from_state, to_state, reason, actor)
         SELECT ${id}, NULL, ${bind(post.state)}, ${bind(first.reason)}, ${bind(JSON.stringify(first.actor))}::jsonb FROM p
       ), e AS (${first.events(bind, 'EXISTS (SELECT 1 FROM p)')})
       SELECT p.version, p.created_at AS "createdAt", p.updated_at AS "updatedAt",
              ${guard ? 'usage.month, usage.day FROM usage LEFT JOIN p ON true' : 'NULL::int AS month, NULL::int AS day FROM p'}`,
      values,
    );
    const inserted =
      row?.version != null ? { version: row.version, createdAt: row.createdAt!, updatedAt: row.updatedAt! } : null;
    return { inserted, usage: guard && row ? { month: row.month ?? 0, day: row.day ?? 0 } : null };
  }

  /** The profile's accounts that can publish now (the accounts module's). */
  activeAccounts(m: EntityManager, auth: Pick<AuthContext, 'workspaceId' | 'profileId'>): Promise<ActiveAccount[]> {
    return this.accounts.active(m, auth);
  }

  /** The post's published targets the key may see (or only `accountId`'s), oldest first. */
  publishedTargetsOfPost(
    auth: Pick<AuthContext, 'profileId' | 'accountIds'>,
    postId: string,
    accountId?: string,
  ): Promise<PostTargetEntity[]> {
    const account = accountId ?? (auth.accountIds ? In(auth.accountIds) : undefined);
    return this.ds.manager.find(PostTargetEntity, {
      where: { postId, profileId: auth.profileId, status: 'success', ...(account ? { accountId: account } : {}) },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  /** An account's targets published since `since` (with their network id), newest first: what analytics and comment sync re-read. */
  async publishedTargetsOf(
    account: { id: string; profileId: string },
    since: Date,
    limit: number,
  ): Promise<PostTargetEntity[]> {
    return this.ds
      .getRepository(PostTargetEntity)
      .createQueryBuilder('t')
      .where('t.account_id = :accountId AND t.profile_id = :profileId', {
        accountId: account.id,
        profileId: account.profileId,
      })
      .andWhere(`t.status = 'success' AND t.external_id IS NOT NULL AND t.published_at >= :since`, { since })
      .orderBy('t.published_at', 'DESC')
      .limit(limit)
      .getMany();
  }

  /** Posts the key created since `since` (the daily cap; index posts(created_by_key_id, created_at)). */
  async countCreatedByKeySince(m: EntityManager, keyId: string, since: Date): Promise<number> {
    const [row] = await m.query<{ n: number }[]>(
      'SELECT count(*)::int AS n FROM posts WHERE created_by_key_id = $1 AND created_at >= $2',
      [keyId, since],
    );
    return row?.n ?? 0;
  }

  /**
   * Claims up to `limit` due scheduled posts (partial index ix_posts_due) FOR UPDATE SKIP LOCKED,
   * on the caller's transaction: processes promoting at the same time take different posts.
   * `except`: posts this run already failed to promote (left for the next run).
   */
  async claimDue(
    m: EntityManager,
    limit: number,
    except: string[] = [],
  ): Promise<Pick<PostEntity, 'id' | 'profileId' | 'approvedByUserId'>[]> {
    return m.query(
      `SELECT id, profile_id AS "profileId", approved_by_user_id AS "approvedByUserId" FROM posts
        WHERE state = 'scheduled' AND scheduled_at <= now() AND id <> ALL($2::uuid[])
        ORDER BY scheduled_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit, except],
    );
  }

  /** Whether the post is still scheduled at this version (its delayed job still has work to do). */
  async isScheduledAt(id: string, version: number): Promise<boolean> {
    const rows = await this.ds.query<unknown[]>(
      `SELECT 1 FROM posts WHERE id = $1 AND state = 'scheduled' AND version = $2`,
      [id, version],
    );
    return rows.length > 0;
  }

  /** Posts queued for longer than `olderThanMs` (partial index ix_posts_queued): their job may be lost. */
  async findStaleQueued(olderThanMs: number, limit: number): Promise<{ id: string; version: number }[]> {
    return this.ds.query<{ id: string; version: number }[]>(
      `SELECT id, version FROM posts WHERE state = 'queued' AND updated_at < now() - $1 * interval '1 millisecond' ORDER BY updated_at LIMIT $2`,
      [olderThanMs, limit],
    );
  }
}
