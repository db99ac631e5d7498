import { createServer, IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { Express } from 'express';

type Init = (this: object, ...args: unknown[]) => void;

/**
 * Constructors of Node's IncomingMessage and ServerResponse whose instances are built on
 * `request` and `response` (which inherit from their prototypes): what
 * `Object.setPrototypeOf(new IncomingMessage(socket), request)` gives, the prototype never changed
 * after construction. Node's two constructors are plain functions that initialise `this` (as
 * their own subclasses in Node do), so they are called on the new object; `Reflect.construct`
 * with another `new.target` measured five times slower.
 */
function constructorsOn(request: object, response: object) {
  const initRequest = IncomingMessage as unknown as Init;
  const initResponse = ServerResponse as unknown as Init;
  function Request(this: object, socket: unknown): void {
    initRequest.call(this, socket);
  }
  function Response(this: object, req: unknown, options: unknown): void {
    initResponse.call(this, req, options);
  }
  Request.prototype = request;
  Response.prototype = response;
  return {
    IncomingMessage: Request as unknown as typeof IncomingMessage,
    ServerResponse: Response as unknown as typeof ServerResponse,
  };
}

/**
 * The HTTP server for an Express app, its requests and responses built on the app's own
 * prototypes (`app.request`, `app.response`: Express's request and response methods over Node's
 * IncomingMessage and ServerResponse). Express 5 moves every request and response onto these with
 * `Object.setPrototypeOf` when it receives them; built there already, that call changes nothing.
 * The objects and their prototype chain are the same; what changes is V8's work: a prototype
 * changed after construction gave each request and response a map of its own, and their
 * properties, Express's and ours, outlived the young-generation collections (about 8 KB per
 * request of a plain Express app promoted to the old generation, 17 KB per `GET /v1/profile`,
 * against none for a bare node:http server), so each scavenge copied MBs and the old generation
 * filled with short-lived objects that only a full mark-compact freed. See README, Performance.
 */
export function createExpressServer(app: Express): Server {
  return createServer(constructorsOn(app.request, app.response), app);
}
