import { postgresTestUrl } from '../../testing/postgres.js';
import { startTestCairn } from '../../testing/test-cairn.js';
import { runStoreConformance } from '../store.case.js';
import { runStoreAccountsConformance } from '../store-accounts.case.js';
import { runStoreAuditConformance } from '../store-audit.case.js';
import { runStoreSearchConformance } from '../store-search.case.js';
import { runSearchPoolConformance } from '../store-search-pools.case.js';
import { runSearchStateConformance } from '../store-search-state.case.js';
import { runStoreTransferConformance } from '../store-transfer.case.js';

const target = postgresTestUrl();
if ('skip' in target) console.log(`# PostgreSQL store conformance skipped: ${target.skip}`);
runStoreConformance('postgres', () => startTestCairn({ postgresServerUrl: 'url' in target ? target.url : '' }), 'skip' in target ? target.skip : undefined);
runStoreAccountsConformance('postgres', () => startTestCairn({ postgresServerUrl: 'url' in target ? target.url : '' }), 'skip' in target ? target.skip : undefined);
runStoreAuditConformance('postgres', () => startTestCairn({ postgresServerUrl: 'url' in target ? target.url : '' }), 'skip' in target ? target.skip : undefined);
runStoreTransferConformance('postgres', () => startTestCairn({ postgresServerUrl: 'url' in target ? target.url : '' }), 'skip' in target ? target.skip : undefined);
runSearchPoolConformance('postgres', () => startTestCairn({ postgresServerUrl: 'url' in target ? target.url : '' }), 'skip' in target ? target.skip : undefined);
runStoreSearchConformance('postgres', () => startTestCairn({ postgresServerUrl: 'url' in target ? target.url : '' }), 'skip' in target ? target.skip : undefined);
runSearchStateConformance('postgres', () => startTestCairn({ postgresServerUrl: 'url' in target ? target.url : '' }), 'skip' in target ? target.skip : undefined);
