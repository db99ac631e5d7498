import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuthContext } from '@/common/auth/auth-context';
import { ApiError } from '@/common/errors/api-error';
import { addDays, daysInclusive, isCalendarDate, utcDate } from './analytics-dates';
import { buildHistory, DailyPlatformRow, HistoryRange, LastFollowersRow } from './analytics-history';
import { AnalyticsHistoryDto, AnalyticsHistoryQueryDto, TopContentDto } from './dto/analytics.dto';
import { postScopeCondition } from '@/modules/posts/post-scope';
import { joinPublishedItems } from '@/modules/posts/published-items-sql';
import { AccountDailyMetricEntity } from './entities/account-daily-metric.entity';

export const DEFAULT_RANGE_DAYS_BACK = 28;
export const MAX_RANGE_DAYS = 366;
const TOP_CONTENT = 10;

interface Scope {
  workspaceId: string;
  profileId: string;
  /** The key's account restriction, or null. */
  accountIds: string[] | null;
}

/**
 * `from` defaults to 28 days before `to`, `to` to today (UTC); both included. The previous
 * period is the same number of days just before `from`.
 */
export function resolveRange(q: Pick<AnalyticsHistoryQueryDto, 'from' | 'to'>, now: Date): HistoryRange {
  for (const field of ['from', 'to'] as const) {
    const v = q[field];
    if (v !== undefined && !isCalendarDate(v)) throw ApiError.invalid(field, `${field} must be a date (YYYY-MM-DD)`);
  }
  const to = q.to ?? utcDate(now);
  const from = q.from ?? addDays(to, -DEFAULT_RANGE_DAYS_BACK);
  const days = daysInclusive(from, to);
  if (days < 1) throw ApiError.invalid('from', `from (${from}) must not be after to (${to})`);
  if (days > MAX_RANGE_DAYS)
    throw ApiError.invalid('to', `The range covers ${days} days; at most ${MAX_RANGE_DAYS} are allowed`);
  return { from, to, previousFrom: addDays(from, -days), previousTo: addDays(from, -1) };
}

/** `GET /v1/analytics/history`: aggregates of the daily snapshots, in SQL. */
@Injectable()
export class AnalyticsHistoryService {
  constructor(private readonly dataSource: DataSource) {}

  async history(auth: AuthContext, query: AnalyticsHistoryQueryDto, now = new Date()): Promise<AnalyticsHistoryDto> {
    const range = resolveRange(query, now);
    const scope: Scope = { workspaceId: auth.workspaceId, profileId: auth.profileId, accountIds: auth.accountIds };
    const [daily, lastFollowers, top] = await Promise.all([
      this.dailyByPlatform(scope, range),
      this.lastFollowers(scope, range),
      this.topContent(scope, range),
    ]);
    return buildHistory(auth.profileId, range, daily, lastFollowers, top);
  }

  /** Sums per (day, network) over both periods. */
  private async dailyByPlatform(scope: Scope, range: HistoryRange): Promise<DailyPlatformRow[]> {
    const qb = this.dataSource
      .createQueryBuilder(AccountDailyMetricEntity, 'm')
      .select(`to_char(m.date, 'YYYY-MM-DD')`, 'date')
      .addSelect('m.platform', 'platform')
      .addSelect('SUM(m.views)::float8', 'views')
      .addSelect('SUM(m.engagement)::float8', 'engagement')
      .addSelect('SUM(m.shares)::float8', 'shares')
      .addSelect('SUM(m.reach)::float8', 'reach')
      .addSelect('SUM(m.followers)::float8', 'followers')
      .where('m.workspaceId = :workspaceId AND m.profileId = :profileId', scope)
      .andWhere('m.date BETWEEN :from AND :to', { from: range.previousFrom, to: range.to })
      .groupBy('m.date')
      .addGroupBy('m.platform')
      .orderBy('m.date')
      .addOrderBy('m.platform');
    if (scope.accountIds) qb.andWhere('m.accountId = ANY(:accountIds)', { accountIds: scope.accountIds });
    return qb.getRawMany<DailyPlatformRow>();
  }

  /** Each account's followers on its last snapshot day of each period. */
  private async lastFollowers(scope: Scope, range: HistoryRange): Promise<LastFollowersRow[]> {
    const rows = await this.dataSource.query<LastFollowersRow[]>(
      `SELECT DISTINCT ON (m.account_id, m.date >= $4::date)
              m.account_id AS "accountId", m.platform, (m.date >= $4::date) AS current, m.followers
         FROM account_daily_metrics m
        WHERE m.workspace_id = $1 AND m.profile_id = $2 AND m.date BETWEEN $3::date AND $5::date
          AND ($6::uuid[] IS NULL OR m.account_id = ANY($6::uuid[]))
        ORDER BY m.account_id, m.date >= $4::date, m.date DESC`,
      [scope.workspaceId, scope.profileId, range.previousFrom, range.from, range.to, scope.accountIds],
    );
    return rows;
  }

  /**
   * Posts with a target published in the range (for a key restricted to accounts: only posts
   * whose targets are all among them, post-scope.ts), ranked by the engagement of their items'
   * latest snapshot on or before `to` (summed over networks).
   */
  private async topContent(scope: Scope, range: HistoryRange): Promise<TopContentDto[]> {
    const rows = await this.dataSource.query<(Omit<TopContentDto, 'publishedAt'> & { publishedAt: Date })[]>(
      `WITH latest AS (
         SELECT DISTINCT ON (pm.target_id) pm.*
           FROM post_daily_metrics pm
          WHERE pm.workspace_id = $1 AND pm.profile_id = $2 AND pm.date <= $4::date
            AND ($5::uuid[] IS NULL OR pm.account_id = ANY($5::uuid[]))
          ORDER BY pm.target_id, pm.date DESC
       )
       SELECT l.post_id AS "postId", left(coalesce(p.message, p.caption), 280) AS text, p.content_type AS "contentType",
              min(t.published_at) AS "publishedAt",
              sum(l.views)::float8 AS views, sum(l.likes)::float8 AS likes, sum(l.comments)::float8 AS comments,
              sum(l.shares)::float8 AS shares, sum(l.reach)::float8 AS reach, sum(l.engagement)::float8 AS engagement,
              json_agg(json_build_object('accountId', l.account_id, 'platform', l.platform, 'externalId', l.external_id,
                       'url', t.external_url, 'views', l.views, 'engagement', l.engagement) ORDER BY l.engagement DESC, l.account_id) AS targets
         FROM latest l
         ${joinPublishedItems('l', '$2', '$1')}
        WHERE ($5::uuid[] IS NULL OR ${postScopeCondition('p', '$5')}) AND t.published_at >= $3::date AND t.published_at < $4::date + 1
        GROUP BY l.post_id, p.message, p.caption, p.content_type
        ORDER BY engagement DESC, "publishedAt" DESC, l.post_id
        LIMIT ${TOP_CONTENT}`,
      [scope.workspaceId, scope.profileId, range.from, range.to, scope.accountIds],
    );
    return rows.map((r) => ({ ...r, publishedAt: r.publishedAt.toISOString() }));
  }
}
