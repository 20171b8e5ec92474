import { useState } from 'react';
import { api, messageOf } from '../api/client.js';
import { Dialog } from '../ui/dialog.js';
import { type NotRead, type RuleFile, type RuleFiles, ruleFilesOfFolder } from './rule-files.js';
import { ruleFilesOfZip } from './rule-zip.js';

interface PlannedRule {
  path: string;
  action: 'create' | 'update' | 'unchanged' | 'not_mapped';
  title?: string;
  notes: string[];
}
interface Report {
  dryRun: boolean;
  rules: PlannedRule[];
  counts: Record<PlannedRule['action'], number>;
}

const ACTION = { create: 'Create', update: 'Update', unchanged: 'Unchanged', not_mapped: 'Not mapped' } as const;

/** How many files not read the dialog names (a hostile zip may hold thousands). */
const NOT_READ_SHOWN = 100;

/** A repository's folder or .zip: its rule files (Cursor, Claude Code, AGENTS.md…) previewed, then imported. */
export function RulesImportDialog({
  datapackId,
  onClose,
  onImported,
}: {
  datapackId: string;
  onClose: () => void;
  onImported: () => void;
}) {
  const [files, setFiles] = useState<RuleFile[]>();
  const [notRead, setNotRead] = useState<NotRead[]>([]);
  const [project, setProject] = useState('');
  const [projectTyped, setProjectTyped] = useState(false);
  const [report, setReport] = useState<Report>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  /** Reads what was picked (a folder's files or one .zip); a refused zip says why and what to choose instead. */
  const pick = async (read: () => Promise<RuleFiles>) => {
    setReport(undefined);
    setError(undefined);
    setFiles(undefined);
    setNotRead([]);
    setBusy(true);
    try {
      const result = await read();
      setFiles(result.files);
      setNotRead(result.notRead);
      if (!projectTyped) setProject(result.project);
    } catch (e) {
      setError(e instanceof Error ? e.message : messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  const pickFolder = (list: FileList | null) => void pick(() => ruleFilesOfFolder([...(list ?? [])]));
  const pickZip = (list: FileList | null) => {
    const zip = list?.[0];
    if (zip) void pick(() => ruleFilesOfZip(zip));
  };
  const send = async (dryRun: boolean) => {
    if (!files) return;
    setBusy(true);
    setError(undefined);
    try {
      const r = await api<Report>('POST', `/api/v1/datapacks/${encodeURIComponent(datapackId)}/rules/import`, {
        files,
        project: project.trim(),
        dryRun,
      });
      setReport(r);
      if (!dryRun) onImported();
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      title="Import rule files"
      onClose={onClose}
      wide
      footer={
        <>
          <button type="button" className="button secondary" onClick={onClose}>
            {report && !report.dryRun ? 'Done' : 'Cancel'}
          </button>
          <button type="button" className="button secondary" disabled={!files || busy} onClick={() => void send(true)}>
            Preview
          </button>
          <button type="button" className="button" disabled={!report?.dryRun || busy} onClick={() => void send(false)}>
            Import
          </button>
        </>
      }
    >
      <p>
        Choose a repository's folder, or its .zip (such as GitHub's Download ZIP): its Cursor, Claude Code, AGENTS.md,
        Copilot, Kiro, Windsurf, Devin, Continue and Cline rule files become rules. Files of up to 256 KiB are read; a
        zip may be up to 256 MiB, and 64 MiB unpacked. Preview first; importing again changes only what changed.
      </p>
      <div className="form-grid">
        <label className="field grow">
          <span>Choose a folder</span>
          {/* @ts-expect-error webkitdirectory is not in React's input attributes */}
          <input type="file" webkitdirectory="" multiple onChange={(e) => pickFolder(e.currentTarget.files)} />
        </label>
        <label className="field grow">
          <span>Choose a .zip</span>
          <input
            type="file"
            accept=".zip,application/zip,application/x-zip-compressed"
            onChange={(e) => pickZip(e.currentTarget.files)}
          />
        </label>
      </div>
      <label className="field">
        <span>Project (the repository's name)</span>
        <input
          value={project}
          onChange={(e) => {
            setProject(e.currentTarget.value);
            setProjectTyped(true);
          }}
        />
      </label>
      {busy && !files && !error && <p role="status">Reading the files…</p>}
      {files && <p>{files.length} candidate files.</p>}
      {notRead.length > 0 && (
        <section aria-label="Not read">
          <h3>Not read</h3>
          <ul>
            {notRead.slice(0, NOT_READ_SHOWN).map((n) => (
              <li key={`${n.path} ${n.reason}`}>
                <code>{n.path}</code>: {n.reason}
              </li>
            ))}
          </ul>
          {notRead.length > NOT_READ_SHOWN && <p className="muted">and {notRead.length - NOT_READ_SHOWN} more.</p>}
        </section>
      )}
      {error && (
        <p className="notice error" role="alert">
          {error}
        </p>
      )}
      {report && (
        <>
          <p>
            {report.dryRun ? 'Would give: ' : 'Imported: '}
            {report.counts.create} created, {report.counts.update} updated, {report.counts.unchanged} unchanged,{' '}
            {report.counts.not_mapped} not mapped.
          </p>
          <table>
            <thead>
              <tr>
                <th>File</th>
                <th>Rule</th>
                <th>{report.dryRun ? 'Would' : 'Done'}</th>
              </tr>
            </thead>
            <tbody>
              {report.rules.map((r) => (
                <tr key={r.path}>
                  <td>{r.path}</td>
                  <td>
                    {r.title}
                    {r.notes.map((n) => (
                      <div key={n} className="muted">
                        {n}
                      </div>
                    ))}
                  </td>
                  <td>{ACTION[r.action]}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </Dialog>
  );
}
