import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { AuthInfo, createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import type { Response } from 'express';
import { AuthService } from '@/common/auth/auth.service';
import { ApiError } from '@/common/errors/api-error';
import type { ServiceRequest } from '@/common/request/request-context';
import { MCP_TOOLS } from './mcp-tools';
import type { CallerContext } from './rest-forwarder';

const INSTRUCTIONS = `Tools of the Social Publishing Service. Each tool is one REST endpoint called with your API key,
so it needs the same permission and answers the same error codes (isError results carry code, message and requestId).
Typical flow: list_accounts → validate_post → create_post (publishNow or scheduledAt) → get_post until a final state.
Pass the same idempotencyKey when retrying a write after an error or time-out.`;

/**
 * MCP Streamable HTTP at /mcp, stateless: every HTTP request gets a fresh server instance
 * (createMcpHandler serves the 2026 per-request protocol and falls back to stateless 2025-era
 * serving for older clients). The HTTP layer checks the bearer key (401 envelopes like REST);
 * rate limits and permissions apply per tool call, in the REST endpoint each tool calls.
 */
@Injectable()
export class McpService implements OnModuleDestroy {
  private readonly logger = new Logger('Mcp');
  private readonly handler = createMcpHandler((ctx) => this.buildServer(ctx.authInfo), {
    onerror: (err) => this.logger.debug(`MCP request rejected: ${err.message}`),
  });
  private readonly nodeHandler = toNodeHandler(this.handler, {
    onerror: (err) => this.logger.error({ err }, 'MCP handler failed'),
  });

  constructor(private readonly auth: AuthService) {}

  async handle(req: ServiceRequest, res: Response): Promise<void> {
    const { authorization, token, keyId, permissions } = await this.authenticate(req);
    const caller: CallerContext = { authorization, baseUrl: loopbackBaseUrl(req) };
    const authInfo: AuthInfo = { token, clientId: keyId, scopes: permissions, extra: { caller } };
    // A structural request: Express's own `req.auth` is the REST AuthContext, not MCP's AuthInfo.
    const nodeReq = {
      method: req.method,
      url: req.originalUrl,
      headers: req.headers,
      auth: authInfo,
      [Symbol.asyncIterator]: () => req[Symbol.asyncIterator](),
    };
    await this.nodeHandler(nodeReq, res, req.body);
  }

  async onModuleDestroy(): Promise<void> {
    await this.handler.close();
  }

  /** Same bearer parsing and 401 codes as the REST guard. */
  private async authenticate(
    req: ServiceRequest,
  ): Promise<{ authorization: string; token: string; keyId: string; permissions: string[] }> {
    const header = req.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!header || !match?.[1]) throw new ApiError('authentication_required');
    const { key } = await this.auth.authenticate(match[1]);
    return { authorization: header, token: match[1], keyId: key.id, permissions: key.permissions };
  }

  private buildServer(authInfo: AuthInfo | undefined): McpServer {
    const caller = authInfo?.extra?.caller as CallerContext | undefined;
    if (!caller) throw new Error('MCP request without an authenticated caller');
    const server = new McpServer(
      { name: 'social-publishing-service', version: '1.0.0' },
      // Stateless: one server per request, so it never sends tools/list_changed; do not advertise it.
      { instructions: INSTRUCTIONS, capabilities: { tools: { listChanged: false } } },
    );
    for (const tool of MCP_TOOLS) tool.register(server, caller);
    return server;
  }
}

/** The address this request arrived on: the service calls itself there (loopback when bound to all interfaces). */
export function loopbackBaseUrl(req: Pick<ServiceRequest, 'socket'>): string {
  const port = req.socket.localPort;
  let host = req.socket.localAddress ?? '127.0.0.1';
  if (host.startsWith('::ffff:')) host = host.slice('::ffff:'.length);
  if (host === '::' || host === '0.0.0.0' || host === '') host = '127.0.0.1';
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
