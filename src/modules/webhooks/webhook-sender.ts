import { Injectable } from '@nestjs/common';
import { request } from 'undici';
import { SsrfSafeAgent } from '@/common/http/ssrf-safe-agent';
import { transportFailure } from '@/common/http/transport-failure';
import { recordWebhookDelivery } from '@/common/metrics/metrics';
import { AppConfig } from '@/config/config';
import { RESPONSE_BODY_LIMIT } from './entities/webhook-delivery.entity';

export interface SendResult {
  ok: boolean;
  /** null when no response arrived (time-out, refused, blocked address…). */
  status: number | null;
  /** First 2000 bytes of the response body (decoded as UTF-8, no split character). */
  body: string | null;
  error: string | null;
}

type Body = AsyncIterable<Buffer | Uint8Array> & {
  destroy(err?: Error): unknown;
};

/** Reads at most `limit` bytes, then drops the connection: a huge or endless body costs nothing. */
export async function readLimited(body: Body, limit: number): Promise<{ text: string; error: Error | null }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let error: Error | null = null;
  try {
    for await (const chunk of body) {
      const buf = Buffer.from(chunk);
      chunks.push(buf.subarray(0, limit - size));
      size += Math.min(buf.length, limit - size);
      if (size >= limit) break;
    }
  } catch (err) {
    error = err as Error;
  } finally {
    body.destroy();
  }
  // stream: true holds back an incomplete trailing UTF-8 sequence instead of emitting U+FFFD.
  const text = new TextDecoder('utf-8').decode(Buffer.concat(chunks), {
    stream: true,
  });
  return { text, error };
}

/** A delivery attempt's error when no answer came: a time-out (ours or undici's), else `code: message`. */
export function describeError(err: unknown, timeoutMs: number): string {
  const { timedOut, transportTimeout, code, message } = transportFailure(err);
  if (timedOut || transportTimeout) return `Timed out after ${timeoutMs} ms`;
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

/**
 * One POST to a receiver through the SSRF-safe agent: no redirects (a 3xx is a failure), an
 * overall time-out (config.webhooks.timeoutMs), at most 2000 bytes of the answer read.
 */
@Injectable()
export class WebhookSender {
  constructor(
    private readonly agent: SsrfSafeAgent,
    private readonly config: AppConfig,
  ) {}

  async send(url: string, rawBody: string, headers: Record<string, string>): Promise<SendResult> {
    const started = performance.now();
    const result = await this.post(url, rawBody, headers);
    recordWebhookDelivery(result.status, result.ok, (performance.now() - started) / 1000);
    return result;
  }

  private async post(url: string, rawBody: string, headers: Record<string, string>): Promise<SendResult> {
    const timeoutMs = this.config.webhooks.timeoutMs;
    try {
      const res = await request(url, {
        method: 'POST',
        headers,
        body: rawBody,
        dispatcher: this.agent.dispatcher,
        signal: AbortSignal.timeout(timeoutMs),
      });
      const { text } = await readLimited(res.body, RESPONSE_BODY_LIMIT);
      const status = res.statusCode;
      if (status >= 200 && status < 300) return { ok: true, status, body: text, error: null };
      const error =
        status >= 300 && status < 400
          ? `Redirect ${status} not followed${typeof res.headers.location === 'string' ? ` (Location: ${res.headers.location.slice(0, 200)})` : ''}`
          : `Receiver answered ${status}`;
      return { ok: false, status, body: text, error };
    } catch (err) {
      return {
        ok: false,
        status: null,
        body: null,
        error: describeError(err, timeoutMs),
      };
    }
  }
}
