import { createHash } from 'node:crypto';
import { unixDay } from '../days';

/** Deterministic numbers: the same (account, date) or item always gives the same, so tests call these to expect them. */

/** An integer in [min, max] derived from the parts. */
export function stableInt(min: number, max: number, ...parts: string[]): number {
  const h = createHash('sha256').update(parts.join('\u0000')).digest();
  return min + (h.readUInt32BE(0) % (max - min + 1));
}

export type SandboxDailyMetrics = ReturnType<typeof dailyAccountMetrics>;

/** An account's numbers of a day (YYYY-MM-DD, UTC); followers are the total at the end of the day. */
export function dailyAccountMetrics(accountId: string, date: string) {
  const views = stableInt(200, 5000, accountId, date, 'views');
  const reach = Math.floor(views * (0.5 + stableInt(0, 40, accountId, date, 'reach') / 100));
  const engagement = Math.floor(reach * (stableInt(1, 12, accountId, date, 'engagement') / 100));
  const shares = Math.floor(engagement / stableInt(4, 10, accountId, date, 'shares'));
  // Followers grow by a per-account amount per day since 2024-01-01.
  const days = Math.floor((unixDay(date) - unixDay('2024-01-01')) / 86_400);
  const followers = stableInt(1000, 50_000, accountId, 'followers') + days * stableInt(1, 25, accountId, 'growth');
  return { date, views, reach, engagement, shares, followers: Math.max(0, followers) };
}

export type SandboxItemMetrics = ReturnType<typeof itemMetrics>;

export function itemMetrics(itemId: string) {
  const views = stableInt(100, 20_000, itemId, 'views');
  const reach = Math.floor(views * (0.6 + stableInt(0, 30, itemId, 'reach') / 100));
  const likes = Math.floor(reach * (stableInt(2, 15, itemId, 'likes') / 100));
  const comments = commentCount(itemId);
  const shares = stableInt(0, 60, itemId, 'shares');
  const saves = stableInt(0, 40, itemId, 'saves');
  return { views, reach, likes, comments, shares, saves, engagement: likes + comments + shares + saves };
}

export function commentCount(itemId: string): number {
  return stableInt(3, 12, itemId, 'comments');
}

/** A generated comment, or one an account posted (sandbox-comments' addOwnComment). */
export type SandboxComment = ReturnType<typeof itemComments>[number];

const NAMES = [
  'Ada Lovelace',
  'Alan Turing',
  'Grace Hopper',
  'Katherine Johnson',
  'Linus Pauling',
  'Margaret Hamilton',
  'Tim Berners-Lee',
  'Radia Perlman',
];
const TEXTS = [
  'Love this!',
  'Great post 👏',
  'Where can I learn more?',
  'So true.',
  'Sharing with my team.',
  'Congrats!',
  'Interesting take.',
  'This made my day 😄',
];

/**
 * The comments of an item, oldest first; their number equals itemMetrics(itemId).comments. Each is created
 * `publishedAt` plus a few minutes per comment (ISO time).
 */
export function itemComments(itemId: string, publishedAt: string) {
  const base = Date.parse(publishedAt);
  return Array.from({ length: commentCount(itemId) }, (_, i) => {
    const n = stableInt(0, 1e6, itemId, 'comment', String(i));
    return {
      id: `${itemId}_c${i + 1}`,
      authorId: String(100000 + n),
      authorName: NAMES[n % NAMES.length],
      text: TEXTS[(n >> 3) % TEXTS.length],
      createdAt: new Date(base + (i + 1) * 7 * 60_000).toISOString(),
    };
  });
}
