import { type Kysely, type Migration, Migrator } from 'kysely';

/** Applies pending migrations in name order; fails start-up with the migration's own error. */
export async function runMigrations(db: Kysely<any>, migrations: Record<string, Migration>): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'cairn_migration',
    migrationLockTableName: 'cairn_migration_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`Database migration ${failed} failed: ${(error as Error).message ?? String(error)}`);
  }
}
