// cairn-test: one backend (postgres/postgres-store.test.ts runs the same cases on PostgreSQL)
import { startTestCairn } from '../../testing/test-cairn.js';
import { runStoreConformance } from '../store.case.js';
import { runStoreAccountsConformance } from '../store-accounts.case.js';
import { runStoreAuditConformance } from '../store-audit.case.js';
import { runStoreSearchConformance } from '../store-search.case.js';
import { runSearchPoolConformance } from '../store-search-pools.case.js';
import { runSearchStateConformance } from '../store-search-state.case.js';
import { runStoreTransferConformance } from '../store-transfer.case.js';

runStoreConformance('sqlite', () => startTestCairn());
runStoreAccountsConformance('sqlite', () => startTestCairn());
runStoreAuditConformance('sqlite', () => startTestCairn());
runStoreTransferConformance('sqlite', () => startTestCairn());
runSearchPoolConformance('sqlite', () => startTestCairn());
runStoreSearchConformance('sqlite', () => startTestCairn());
runSearchStateConformance('sqlite', () => startTestCairn());
