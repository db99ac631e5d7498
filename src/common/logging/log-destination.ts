import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import pino from 'pino';

/** Log lines are written once this many bytes are buffered, or on the next flush tick. */
const BUFFER_BYTES = 4096;
/** The longest a line waits in the buffer. */
const FLUSH_MS = 1000;

let destination: pino.DestinationStream & { flush(): void; flushSync(): void } = undefined!;

/**
 * Standard output for the process's log lines, written asynchronously and in batches: a line is
 * buffered until 4 KiB are waiting or a second has passed (one write(2) per batch instead of one
 * per request line); whatever is buffered is written at shutdown and at exit.
 */
export function logDestination(): pino.DestinationStream {
  if (destination) return destination;
  destination = pino.destination({ dest: 1, sync: false, minLength: BUFFER_BYTES });
  setInterval(() => {
    try {
      destination.flush();
    } catch {
      // destroyed at exit
    }
  }, FLUSH_MS).unref();
  return destination;
}

/** Writes the buffered lines when the application stops (a signal ends the process without `exit`). */
@Injectable()
export class LogFlushOnShutdown implements OnApplicationShutdown {
  onApplicationShutdown(): void {
    try {
      destination?.flushSync();
    } catch {
      // nothing buffered, or already closed
    }
  }
}
