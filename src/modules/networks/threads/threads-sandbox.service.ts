import { addDays } from '../kit/days';
import { Injectable } from '@nestjs/common';
import { graphFail, graphMagicErrors } from '../kit/sandbox/graph-sandbox';
import { enforceMagicWords } from '../kit/sandbox/magic-words';
import { SandboxGrant, sandboxNumericId, TokenInfo } from '../kit/sandbox/sandbox-oauth';
import { SandboxStore } from '../kit/sandbox/sandbox-store';
import { dailyAccountMetrics, dateRange } from '../kit/sandbox/sandbox-metrics';

/** Users of the simulated Threads: one new profile per grant. */
export interface ThreadsUser {
  id: string;
  username: string;
  name: string;
  ownerUserId: string;
}

export const THREADS_DAILY_QUOTA = 250;

const THREADS_MAGIC = graphMagicErrors('THApiException');

@Injectable()
export class ThreadsSandbox {
  constructor(private readonly store: SandboxStore) {}

  async userOf(grant: SandboxGrant): Promise<ThreadsUser> {
    const key = ['threads', 'user', grant.userId];
    const existing = await this.store.get<ThreadsUser>(key);
    if (existing) return existing;
    const suffix = grant.userId.slice(-4);
    const user: ThreadsUser = {
      id: sandboxNumericId(),
      username: `sandbox_threads_${suffix}`,
      name: `Sandbox Threads ${suffix}`,
      ownerUserId: grant.userId,
    };
    if (!(await this.store.putNew(key, user))) return (await this.store.get<ThreadsUser>(key))!;
    await this.store.put(['threads', 'profile', user.id], user);
    return user;
  }

  /** The profile a token may act for ('me' = the token's own). */
  async authorize(id: string, token: TokenInfo): Promise<ThreadsUser> {
    if (id === 'me') return this.userOf(token.grant);
    const user = await this.store.get<ThreadsUser>(['threads', 'profile', id]);
    if (!user)
      throw graphFail(
        `Unsupported request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
        {
          code: 100,
          subcode: 33,
          type: 'THApiException',
        },
      );
    if (user.ownerUserId !== token.grant.userId)
      throw graphFail('(#10) Application does not have permission for this action', { code: 10, status: 403 });
    return user;
  }

  /** Applies the magic words to a publish call; throws the network's error when it must fail. */
  magic(userId: string, text: string, contentKey: string): Promise<void> {
    return enforceMagicWords(
      this.store,
      { platform: 'threads', accountId: userId, text: text, contentKey },
      THREADS_MAGIC,
    );
  }
}

/** threads_insights for [from, to]: views as a daily series, the rest as totals (like the real API). */
export function threadsUserInsights(userId: string, from: string, to: string, names: string[]): unknown[] {
  const days = dateRange(from, to)
    .slice(0, 93)
    .map((d) => dailyAccountMetrics(userId, d));
  const split = (d: (typeof days)[number]) => {
    const replies = Math.floor(d.engagement / 5);
    return { likes: d.engagement - replies - d.shares, replies, reposts: d.shares, quotes: 0 };
  };
  const total = (k: 'likes' | 'replies' | 'reposts' | 'quotes') => days.reduce((s, d) => s + split(d)[k], 0);
  return names.map((name) => {
    if (name === 'views')
      return {
        name,
        period: 'day',
        title: 'views',
        values: days.map((d) => ({
          value: d.views,
          end_time: `${addDays(d.date, 1)}T07:00:00+0000`,
        })),
        id: `${userId}/insights/views/day`,
      };
    const value = name === 'followers_count' ? (days.at(-1)?.followers ?? 0) : total(name as 'likes');
    return { name, period: 'day', title: name, total_value: { value }, id: `${userId}/insights/${name}/day` };
  });
}
