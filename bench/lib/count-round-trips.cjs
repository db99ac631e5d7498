// Preloaded into the service by bench/run.mjs (NODE_OPTIONS=--require): counts the process's
// Postgres and Redis round trips and serves the running totals on 127.0.0.1:ROUND_TRIPS_PORT
// (GET → {"pg":n,"redis":n}). A Postgres round trip is one Client#query (BEGIN and COMMIT
// included); a Redis one is one command sent on its own, or one pipeline/MULTI however many
// commands it carries. Measuring only: the patched methods do what they did.
const { createServer } = require('node:http');
const pg = require('pg');
const Redis = require('ioredis');
const Pipeline = require('ioredis/built/Pipeline').default;

const counts = { pg: 0, redis: 0 };

const query = pg.Client.prototype.query;
pg.Client.prototype.query = function countedQuery(...args) {
  counts.pg += 1;
  return query.apply(this, args);
};

const sendCommand = Redis.prototype.sendCommand;
Redis.prototype.sendCommand = function countedCommand(command, stream, ...rest) {
  if (stream === undefined) counts.redis += 1; // a pipeline passes its stream: counted once in exec
  return sendCommand.call(this, command, stream, ...rest);
};
const exec = Pipeline.prototype.exec;
Pipeline.prototype.exec = function countedExec(...args) {
  counts.redis += 1;
  return exec.apply(this, args);
};

createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(counts));
})
  .listen(Number(process.env.ROUND_TRIPS_PORT), '127.0.0.1')
  .unref();
