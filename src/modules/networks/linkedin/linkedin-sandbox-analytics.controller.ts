import { Get, Param, Query } from '@nestjs/common';
import { collection, LI_REST, LinkedInSandbox, LiMember, liFail } from './linkedin-sandbox.service';
import { addDays, dayOf } from '../kit/days';
import { SandboxAuth } from '../kit/sandbox/sandbox-auth';
import { SandboxController } from '../kit/sandbox/sandbox-http';
import { dailyAccountMetrics, dateRange, itemMetrics } from '../kit/sandbox/sandbox-metrics';
import { Q, qs } from '../kit/sandbox/sandbox-request';

const DAY_MS = 86_400_000;
const METRIC_TYPE_KEY = 'com.linkedin.adsexternalapi.memberanalytics.v1.CreatorPostAnalyticsMetricTypeV1';
const today = (): string => dayOf(Date.now());
const QUERY_TYPES = ['IMPRESSION', 'MEMBERS_REACHED', 'RESHARE', 'REACTION', 'COMMENT'];

/** The days from `from` to `endExclusive` (epoch ms), at most a year of them. */
const daysOf = (from: number, endExclusive: number): string[] =>
  dateRange(dayOf(from), dayOf(endExclusive - DAY_MS), 366);

/**
 * Simulated LinkedIn analytics, deterministic (sandbox-metrics): organizationalEntityShareStatistics,
 * networkSizes, memberCreatorPostAnalytics and memberFollowersCount. A post's numbers come from
 * itemMetrics(postUrn) (clicks = saves); a day's from dailyAccountMetrics(authorUrn, date).
 */
@SandboxController('linkedin')
export class LinkedInSandboxAnalyticsController {
  constructor(private readonly li: LinkedInSandbox) {}

  @Get('rest/organizationalEntityShareStatistics')
  shareStatistics(@Query() q: Q, @SandboxAuth(LI_REST) m: LiMember): unknown {
    const finder = 'organizationalEntityShareStatistics.FINDER-organizationalEntity';
    const org = this.li.assertOwner(m, qs(q.organizationalEntity), finder);
    if (!org.startsWith('urn:li:organization:'))
      throw liFail(400, 'organizationalEntity must be an organization URN', 'ILLEGAL_ARGUMENT');
    const posts = listParam(qs(q.shares) || qs(q.ugcPosts));
    if (posts.length)
      return collection(
        posts.map((urn) => ({
          organizationalEntity: org,
          [urn.includes(':ugcPost:') ? 'ugcPost' : 'share']: urn,
          totalShareStatistics: postStats(urn),
        })),
      );
    const interval = /timeRange:\(start:(\d+),end:(\d+)\)/.exec(qs(q.timeIntervals));
    if (!interval) return collection([{ organizationalEntity: org, totalShareStatistics: postStats(org) }]);
    const elements = daysOf(Number(interval[1]), Number(interval[2])).map((d) => {
      const t = Date.parse(`${d}T00:00:00Z`);
      const day = dailyAccountMetrics(org, d);
      return {
        organizationalEntity: org,
        timeRange: { start: t, end: t + DAY_MS },
        totalShareStatistics: shareStats({ ...day, comments: 0 }, 0, day.engagement - day.shares),
      };
    });
    return collection(elements, elements.length);
  }

  @Get('rest/networkSizes/:urn')
  networkSize(
    @Param('urn') urn: string,
    @Query('edgeType') edgeType: string,
    @SandboxAuth(LI_REST) m: LiMember,
  ): unknown {
    this.li.assertOwner(m, urn, 'networkSizes.GET');
    if (edgeType !== 'COMPANY_FOLLOWED_BY_MEMBER')
      throw liFail(400, `Unsupported edgeType ${edgeType}`, 'ILLEGAL_ARGUMENT');
    return { firstDegreeSize: dailyAccountMetrics(urn, today()).followers };
  }

  @Get('rest/memberCreatorPostAnalytics')
  async memberPostAnalytics(@Query() q: Q, @SandboxAuth(LI_REST) m: LiMember): Promise<unknown> {
    const type = qs(q.queryType);
    if (!QUERY_TYPES.includes(type)) throw liFail(400, `Invalid queryType ${type}`, 'ILLEGAL_ARGUMENT');
    const metricType = { [METRIC_TYPE_KEY]: type };
    if (qs(q.q) === 'entity') {
      // entity=(share:urn:li:share:1) / (ugcPost:urn:li:ugcPost:1), or a bare URN.
      const urn = /(urn:li:(?:share|ugcPost):[^)]+)/.exec(qs(q.entity))?.[1] ?? '';
      const post = await this.li.posts.get(urn);
      if (!post || post.author !== m.urn)
        throw liFail(
          403,
          `Not enough permissions to access: memberCreatorPostAnalytics for ${urn || '(none)'}`,
          'ACCESS_DENIED',
          100,
        );
      const it = itemMetrics(urn);
      return collection([{ count: countOf(type, { ...it, reactions: it.likes }), metricType }]);
    }
    if (qs(q.q) !== 'me') throw liFail(400, `Invalid finder: ${qs(q.q)}`, 'ILLEGAL_ARGUMENT');
    const [from, endExclusive] = [...qs(q.dateRange).matchAll(/\(day:(\d+),month:(\d+),year:(\d+)\)/g)].map((x) =>
      Date.UTC(Number(x[3]), Number(x[2]) - 1, Number(x[1])),
    );
    if (from === undefined || endExclusive === undefined || endExclusive <= from)
      throw liFail(400, 'dateRange must have a start before its end', 'ILLEGAL_ARGUMENT');
    const days = daysOf(from, endExclusive);
    const pick = (d: string): number => {
      const x = dailyAccountMetrics(m.urn, d);
      return countOf(type, { ...x, reactions: x.engagement - x.shares, comments: 0 });
    };
    if (qs(q.aggregation) === 'TOTAL')
      return collection([{ count: days.reduce((s, d) => s + pick(d), 0), metricType }], 1);
    const elements = days.map((d) => ({
      count: pick(d),
      metricType,
      dateRange: { start: liDate(d), end: liDate(addDays(d, 1)) },
    }));
    return collection(elements, elements.length);
  }

  @Get('rest/memberFollowersCount')
  followers(@Query('q') finder: string, @SandboxAuth(LI_REST) m: LiMember): unknown {
    if (finder !== 'me') throw liFail(400, `Invalid finder: ${finder}`, 'ILLEGAL_ARGUMENT');
    return collection([{ memberFollowersCount: dailyAccountMetrics(m.urn, today()).followers }], 1);
  }
}

/** `List(urn:li:share:1,urn:li:share:2)` → the URNs. */
function listParam(v: string): string[] {
  const m = /^List\((.*)\)$/.exec(v);
  return m?.[1]
    ? m[1]
        .split(',')
        .map((s) => decodeURIComponent(s.trim()))
        .filter(Boolean)
    : [];
}

type Numbers = { views: number; reach: number; shares: number; comments: number };

/** memberCreatorPostAnalytics' count of one queryType. */
function countOf(type: string, n: Numbers & { reactions: number }): number {
  const byType: Record<string, number> = {
    IMPRESSION: n.views,
    MEMBERS_REACHED: n.reach,
    RESHARE: n.shares,
    REACTION: n.reactions,
    COMMENT: n.comments,
  };
  return byType[type] ?? 0;
}

/** totalShareStatistics of a post or an organisation's day (engagement as a rate of impressions). */
function shareStats(n: Numbers & { engagement: number }, clicks: number, likes: number): Record<string, number> {
  return {
    uniqueImpressionsCount: n.reach,
    shareCount: n.shares,
    engagement: n.views ? n.engagement / n.views : 0,
    clickCount: clicks,
    likeCount: likes,
    impressionCount: n.views,
    commentCount: n.comments,
  };
}

function postStats(urn: string): Record<string, number> {
  const it = itemMetrics(urn);
  return shareStats(it, it.saves, it.likes);
}

function liDate(day: string): { day: number; month: number; year: number } {
  const [year, month, date] = day.split('-').map(Number);
  return { day: date ?? 1, month: month ?? 1, year: year ?? 1970 };
}
