import type { AdapterEndpoints, OAuthTokens } from '../adapter';
import { dayOf } from '../days';
import { tokenExpiry } from '../oauth';

/** Response shapes shared by the Graph-based adapters, and small parsing helpers. */

export interface GraphList<T> {
  data: T[];
  paging?: { cursors?: { before?: string; after?: string }; next?: string; previous?: string };
}

/** `GET /{object}/insights` (Pages, Instagram, Threads). */
export interface GraphInsight {
  name: string;
  values?: { value: number | Record<string, number>; end_time?: string }[];
  total_value?: { value: number };
}

/** Token endpoints (`/oauth/access_token`, `fb_exchange_token`, `th_exchange_token`, `th_refresh_token`). */
export interface GraphTokenResponse {
  access_token: string;
  /** Seconds */
  expires_in?: number;
}

/** Sum of a metric: its total_value, or the sum of its numeric values. */
export function insightTotal(insights: GraphInsight[], name: string): number {
  const m = insights.find((i) => i.name === name);
  if (!m) return 0;
  if (m.total_value) return m.total_value.value;
  return (m.values ?? []).reduce((s, v) => s + (typeof v.value === 'number' ? v.value : 0), 0);
}

/** metric → (day → value) of period=day series; a value's `end_time` ends its day (it covers the day before). */
export function insightSeries(insights: GraphInsight[]): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const m of insights) {
    const days = out.get(m.name) ?? new Map<string, number>();
    for (const v of m.values ?? [])
      if (v.end_time && typeof v.value === 'number') days.set(dayOf(Date.parse(v.end_time) - 86_400_000), v.value);
    out.set(m.name, days);
  }
  return out;
}

/** The app's id and secret as Graph's token endpoints take them. */
export function appCredentials(e: Pick<AdapterEndpoints, 'clientId' | 'clientSecret'>): Record<string, string> {
  return { client_id: e.clientId, client_secret: e.clientSecret };
}

/** A Graph token endpoint's answer as our tokens: Graph grants no refresh tokens. */
export async function graphTokens(answer: Promise<GraphTokenResponse>, scopes: string[]): Promise<OAuthTokens> {
  const now = Date.now();
  const res = await answer;
  return { accessToken: res.access_token, refreshToken: null, expiresAt: tokenExpiry(res.expires_in, now), scopes };
}

/** Unix seconds of a YYYY-MM-DD date (UTC midnight), as Graph's since/until take. */
export function unixDay(date: string, plusDays = 0): number {
  return Math.floor(Date.parse(`${date}T00:00:00Z`) / 1000) + plusDays * 86_400;
}
