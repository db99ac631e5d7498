import 'reflect-metadata';
import { createApp, createWorker } from './bootstrap/create-app';
import { ConfigError, loadConfig, loadDotEnv } from './config/config';

async function main(): Promise<void> {
  loadDotEnv();
  const config = loadConfig();
  if (config.runsApi) {
    const app = await createApp(config);
    await app.listen(config.port);
    console.log(
      `API listening on ${config.publicBaseUrl} (role ${config.role}); Swagger UI at ${config.publicBaseUrl}/docs`,
    );
  } else {
    await createWorker(config);
    console.log('Worker started');
  }
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) console.error(err.message);
  else console.error(err);
  process.exit(1);
});
