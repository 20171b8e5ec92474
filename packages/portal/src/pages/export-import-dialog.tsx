import { useState } from 'react';
import { api, messageOf } from '../api/client.js';
import type { ImportReport } from '../api/types.js';
import { Dialog } from '../ui/dialog.js';

/** The most the server takes in one import (POST /api/v1/import); a larger file is for `cairn import` on the server. */
const MAX_BYTES = 16 * 1024 * 1024;

/** Import a JSON Lines export (Download my data, a datapack's Export, `cairn export`): preview what it would do, then import. */
export function ExportImportDialog({ onClose }: { onClose: () => void }) {
  const [file, setFile] = useState<{ name: string; text: string }>();
  const [report, setReport] = useState<ImportReport>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const send = async (text: string, dryRun: boolean) => {
    setBusy(true);
    setError(undefined);
    try {
      setReport(
        await api<ImportReport>('POST', `/api/v1/import${dryRun ? '?dryRun=true' : ''}`, text, {
          contentType: 'application/x-ndjson',
        }),
      );
    } catch (e) {
      setReport(undefined);
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  const pick = async (list: FileList | null) => {
    setReport(undefined);
    setError(undefined);
    setFile(undefined);
    const chosen = list?.[0];
    if (!chosen) return;
    if (chosen.size > MAX_BYTES) {
      setError(
        `${chosen.name} is larger than 16 MiB, the most the portal imports. Import it on the server with cairn import ${chosen.name}, or export one datapack at a time.`,
      );
      return;
    }
    const text = await chosen.text();
    setFile({ name: chosen.name, text });
    await send(text, true);
  };
  const done = report && !report.dryRun;

  return (
    <Dialog
      title="Import an export"
      onClose={onClose}
      wide
      footer={
        <>
          <button type="button" className="button secondary" onClick={onClose}>
            {done ? 'Done' : 'Cancel'}
          </button>
          <button
            type="button"
            className="button"
            disabled={!file || !report?.dryRun || busy}
            onClick={() => file && void send(file.text, false)}
          >
            {busy && report?.dryRun ? 'Importing…' : 'Import'}
          </button>
        </>
      }
    >
      <p>
        Choose a file Cairn exported (Download my data, a datapack's Export, or <code>cairn export</code>). You see what
        it would create and skip before anything is written; importing the same file again changes nothing.
      </p>
      <label className="field">
        <span>Export file (.jsonl)</span>
        <input type="file" accept=".jsonl,application/x-ndjson" onChange={(e) => void pick(e.currentTarget.files)} />
      </label>
      {busy && !report && <p role="status">Checking the file…</p>}
      {error && (
        <p className="notice error" role="alert">
          {error}
        </p>
      )}
      {report && <ImportSummary report={report} />}
    </Dialog>
  );
}

function ImportSummary({ report }: { report: ImportReport }) {
  const row = (what: string, c: ImportReport['entries']) => (
    <tr>
      <th scope="row">{what}</th>
      <td>{c.created}</td>
      <td>{c.updated}</td>
      <td>{c.unchanged}</td>
      <td>{c.skipped}</td>
    </tr>
  );
  return (
    <section aria-label={report.dryRun ? 'Import preview' : 'Import done'}>
      <p role="status">
        {report.dryRun
          ? 'Nothing is written yet. Importing would give:'
          : `Imported: ${report.versions} versions written.`}
      </p>
      <table>
        <thead>
          <tr>
            <th scope="col">
              <span className="visually-hidden">What</span>
            </th>
            <th scope="col">{report.dryRun ? 'Would be created' : 'Created'}</th>
            <th scope="col">{report.dryRun ? 'Would be updated' : 'Updated'}</th>
            <th scope="col">Unchanged</th>
            <th scope="col">Skipped</th>
          </tr>
        </thead>
        <tbody>
          {row('Datapacks', report.datapacks)}
          {row('Entries', report.entries)}
          {/* A server from before exports carried rule usage reports none. */}
          {report.usage && Object.values(report.usage).some((n) => n > 0) && row('Rule usage answers', report.usage)}
        </tbody>
      </table>
      {report.problems.length > 0 && (
        <ul aria-label="Skipped, and why">
          {report.problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      {report.redacted.length > 0 && (
        <p className="muted small">
          Secrets removed on the way in: {report.redacted.map((f) => `${f.rule} ×${f.count}`).join(', ')}.
        </p>
      )}
    </section>
  );
}
