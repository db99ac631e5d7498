import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { logRefusedPacket } from '../logging/request-line';
import { newRequestId } from '../request/request-context';
import { ApiError } from './api-error';
import { renderError } from './error-envelope';

/**
 * Requests Node's HTTP parser refuses before the application sees them (a URL or headers over
 * the size limit, a malformed request line) get the error envelope too, instead of Node's bare
 * `431`/`400`: 431 for oversized headers, 400 otherwise, code `invalid_request`; and their request
 * line through `root` (logRefusedPacket).
 */
export function answerClientErrorsWithEnvelope(server: Server, docsBaseUrl: string, root: Logger): void {
  server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const requestId = newRequestId();
    const rendered = renderError(
      new ApiError(
        'invalid_request',
        tooLarge ? 'The request URL or headers are too large.' : 'The request could not be parsed as HTTP.',
        { field: tooLarge ? 'headers' : 'request' },
      ),
      { requestId, docsBaseUrl, legacy: false },
    );
    const body = JSON.stringify(rendered.body);
    socket.end(
      `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
    logRefusedPacket(root, requestId, tooLarge ? 431 : 400, err.rawPacket);
  });
}
