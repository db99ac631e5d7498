import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { AppConfig } from '@/config/config';
import { SandboxCaps } from './kit/sandbox/sandbox-caps';
import { SandboxControlController } from './kit/sandbox/sandbox-control.controller';
import { SandboxMediaFetch } from './kit/sandbox/sandbox-media';
import { SandboxOAuth } from './kit/sandbox/sandbox-oauth';
import { SandboxRunMiddleware } from './kit/sandbox/sandbox-run';
import { SandboxStore } from './kit/sandbox/sandbox-store';
import { NETWORKS } from './networks';

const simulators = Object.values(NETWORKS).map((n) => n.simulator);

/**
 * The simulated networks under /sandbox/<network>/… (404 unless SANDBOX_PLATFORMS is on): each
 * network's simulator from its definition, on the shared kit (store, OAuth, magic words, metrics).
 */
@Module({
  controllers: [SandboxControlController, ...simulators.flatMap((s) => s.controllers)],
  providers: [
    SandboxStore,
    SandboxOAuth,
    SandboxMediaFetch,
    {
      provide: SandboxCaps,
      useFactory: (config: AppConfig) => new SandboxCaps(Object.values(NETWORKS), config.networkCaps),
      inject: [AppConfig],
    },
    ...simulators.flatMap((s) => s.providers),
  ],
  exports: [SandboxStore, SandboxOAuth],
})
export class SandboxModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(SandboxRunMiddleware).forRoutes(...simulators.flatMap((s) => s.controllers));
  }
}
