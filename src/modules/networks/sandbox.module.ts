import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { AppConfig } from '@/config/config';
import { SandboxCaps } from './kit/sandbox/sandbox-caps';
import { SandboxControlController } from './kit/sandbox/sandbox-control.controller';
import { SandboxMediaFetch } from './kit/sandbox/sandbox-media';
import { SandboxOAuth } from './kit/sandbox/sandbox-oauth';
import { SandboxRunMiddleware } from './kit/sandbox/sandbox-run';
import { SandboxStore } from './kit/sandbox/sandbox-store';
import { NETWORKS } from './networks';

const networks = Object.values(NETWORKS);
const simulatorControllers = networks.flatMap((n) => n.simulator.controllers);
const sandboxCaps = (config: AppConfig) => new SandboxCaps(networks, config.networkCaps);

/** Each network's simulator under /sandbox/<network>/… (404 unless SANDBOX_PLATFORMS is on) on the sandbox kit. */
@Module({
  controllers: [SandboxControlController, ...simulatorControllers],
  providers: [
    SandboxStore,
    SandboxOAuth,
    SandboxMediaFetch,
    { provide: SandboxCaps, useFactory: sandboxCaps, inject: [AppConfig] },
    ...networks.flatMap((n) => n.simulator.providers),
  ],
  exports: [SandboxStore, SandboxOAuth],
})
export class SandboxModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(SandboxRunMiddleware).forRoutes(...simulatorControllers);
  }
}
