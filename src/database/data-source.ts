import { DataSource, DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { ENTITIES } from './entities';

export function dataSourceOptions(databaseUrl: string, poolSize = 10): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    uuidExtension: 'pgcrypto',
    synchronize: false,
    logging: false,
    extra: { max: poolSize, application_name: 'social-publishing-service' },
  };
}

export function createDataSource(databaseUrl: string, poolSize = 10): DataSource {
  return new DataSource(dataSourceOptions(databaseUrl, poolSize));
}
