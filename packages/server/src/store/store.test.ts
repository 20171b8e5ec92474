// The store conformance suites (store*.case.ts), on each backend: together they take longer than a
// file may, so the runner runs this file once per backend rather than both in one process.
import { runFileOnEachBackend } from '../testing/backends.js';
import { startTestCairn } from '../testing/test-cairn.js';
import { runStoreConformance } from './store.case.js';
import { runStoreAccountsConformance } from './store-accounts.case.js';
import { runStoreAuditConformance } from './store-audit.case.js';
import { runStoreSearchConformance } from './store-search.case.js';
import { runSearchPoolConformance } from './store-search-pools.case.js';
import { runSearchStateConformance } from './store-search-state.case.js';
import { runStoreTransferConformance } from './store-transfer.case.js';

const { name, options } = runFileOnEachBackend();
const start = () => startTestCairn(options);
runStoreConformance(name, start);
runStoreAccountsConformance(name, start);
runStoreAuditConformance(name, start);
runStoreTransferConformance(name, start);
runSearchPoolConformance(name, start);
runStoreSearchConformance(name, start);
runSearchStateConformance(name, start);
