import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ProfilesModule } from '../profiles/profiles.module';
import { ApiKeyEntity } from './api-key.entity';
import { KeysController } from './keys.controller';
import { KeysService } from './keys.service';

@Module({
  imports: [TypeOrmModule.forFeature([ApiKeyEntity]), ProfilesModule],
  controllers: [KeysController],
  providers: [KeysService],
  exports: [KeysService],
})
export class KeysModule {}
