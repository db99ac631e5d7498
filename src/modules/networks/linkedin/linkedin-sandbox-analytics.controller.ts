import { Get, Param, Query } from '@nestjs/common';
import { LI_REST, LinkedInSandbox, LiMember, liFail } from './linkedin-sandbox.service';
import { SandboxAuth } from '../kit/sandbox/sandbox-auth';
import { SandboxController } from '../kit/sandbox/sandbox-http';
import { dailyAccountMetrics, dateRange, itemMetrics } from '../kit/sandbox/sandbox-metrics';
import { Q, qs } from '../kit/sandbox/sandbox-request';

const DAY_MS = 86_400_000;
const METRIC_TYPE_KEY = 'com.linkedin.adsexternalapi.memberanalytics.v1.CreatorPostAnalyticsMetricTypeV1';
const today = (): string => new Date().toISOString().slice(0, 10);

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
    const org = this.li.assertOwner(
      m,
      qs(q.organizationalEntity),
      'organizationalEntityShareStatistics.FINDER-organizationalEntity',
    );
    if (!org.startsWith('urn:li:organization:'))
      throw liFail(400, 'organizationalEntity must be an organization URN', 'ILLEGAL_ARGUMENT');
    const posts = listParam(qs(q.shares) || qs(q.ugcPosts));
    if (posts.length) {
      const elements = posts.map((urn) => ({
        organizationalEntity: org,
        [urn.includes(':ugcPost:') ? 'ugcPost' : 'share']: urn,
        totalShareStatistics: postStats(urn),
      }));
      return { paging: { count: 10, start: 0, links: [] }, elements };
    }
    const interval = /timeRange:\(start:(\d+),end:(\d+)\)/.exec(qs(q.timeIntervals));
    if (!interval)
      return {
        paging: { count: 10, start: 0, links: [] },
        elements: [{ organizationalEntity: org, totalShareStatistics: postStats(org) }],
      };
    const start = Number(interval[1]);
    const end = Number(interval[2]);
    const days = dateRange(
      new Date(start).toISOString().slice(0, 10),
      new Date(end - DAY_MS).toISOString().slice(0, 10),
    ).slice(0, 366);
    const elements = days.map((d) => {
      const t = Date.parse(`${d}T00:00:00Z`);
      return {
        organizationalEntity: org,
        timeRange: { start: t, end: t + DAY_MS },
        totalShareStatistics: dayStats(org, d),
      };
    });
    return { paging: { count: elements.length, start: 0, links: [] }, elements };
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
    if (!['IMPRESSION', 'MEMBERS_REACHED', 'RESHARE', 'REACTION', 'COMMENT'].includes(type))
      throw liFail(400, `Invalid queryType ${type}`, 'ILLEGAL_ARGUMENT');
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
      const counts: Record<string, number> = {
        IMPRESSION: it.views,
        MEMBERS_REACHED: it.reach,
        RESHARE: it.shares,
        REACTION: it.likes,
        COMMENT: it.comments,
      };
      return { paging: { count: 10, start: 0, links: [] }, elements: [{ count: counts[type] ?? 0, metricType }] };
    }
    if (qs(q.q) !== 'me') throw liFail(400, `Invalid finder: ${qs(q.q)}`, 'ILLEGAL_ARGUMENT');
    const [from, endExclusive] = [...qs(q.dateRange).matchAll(/\(day:(\d+),month:(\d+),year:(\d+)\)/g)].map((x) =>
      Date.UTC(Number(x[3]), Number(x[2]) - 1, Number(x[1])),
    );
    if (from === undefined || endExclusive === undefined || endExclusive <= from)
      throw liFail(400, 'dateRange must have a start before its end', 'ILLEGAL_ARGUMENT');
    const days = dateRange(
      new Date(from).toISOString().slice(0, 10),
      new Date(endExclusive - DAY_MS).toISOString().slice(0, 10),
    ).slice(0, 366);
    const pick = (d: string): number => {
      const x = dailyAccountMetrics(m.urn, d);
      const byType: Record<string, number> = {
        IMPRESSION: x.views,
        MEMBERS_REACHED: x.reach,
        RESHARE: x.shares,
        REACTION: x.engagement - x.shares,
        COMMENT: 0,
      };
      return byType[type] ?? 0;
    };
    if (qs(q.aggregation) === 'TOTAL')
      return {
        paging: { count: 1, start: 0, links: [] },
        elements: [{ count: days.reduce((s, d) => s + pick(d), 0), metricType }],
      };
    const elements = days.map((d) => ({
      count: pick(d),
      metricType,
      dateRange: {
        start: liDate(d),
        end: liDate(new Date(Date.parse(`${d}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10)),
      },
    }));
    return { paging: { count: elements.length, start: 0, links: [] }, elements };
  }

  @Get('rest/memberFollowersCount')
  followers(@Query('q') finder: string, @SandboxAuth(LI_REST) m: LiMember): unknown {
    if (finder !== 'me') throw liFail(400, `Invalid finder: ${finder}`, 'ILLEGAL_ARGUMENT');
    return {
      paging: { count: 1, start: 0, links: [] },
      elements: [{ memberFollowersCount: dailyAccountMetrics(m.urn, today()).followers }],
    };
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

function postStats(urn: string): Record<string, number> {
  const it = itemMetrics(urn);
  return {
    uniqueImpressionsCount: it.reach,
    shareCount: it.shares,
    engagement: it.views ? it.engagement / it.views : 0,
    clickCount: it.saves,
    likeCount: it.likes,
    impressionCount: it.views,
    commentCount: it.comments,
  };
}

function dayStats(account: string, date: string): Record<string, number> {
  const d = dailyAccountMetrics(account, date);
  return {
    uniqueImpressionsCount: d.reach,
    shareCount: d.shares,
    engagement: d.views ? d.engagement / d.views : 0,
    clickCount: 0,
    likeCount: d.engagement - d.shares,
    impressionCount: d.views,
    commentCount: 0,
  };
}

function liDate(day: string): { day: number; month: number; year: number } {
  const [year, month, date] = day.split('-').map(Number);
  return { day: date ?? 1, month: month ?? 1, year: year ?? 1970 };
}
