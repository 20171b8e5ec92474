import { useState } from 'react';
import { api, messageOf } from '../api/client.js';
import { Dialog } from '../ui/dialog.js';

/** The files of a folder that may be a tool's rules (the server decides; this only keeps the upload small). */
const CANDIDATE = /(\.mdc|\.md|\.txt|\/\.clinerules)$/;
const MAX_BYTES = 256 * 1024;

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

/** Upload a repository's folder: its rule files (Cursor, Claude Code, AGENTS.md…) previewed, then imported as rules. */
export function RulesImportDialog({
  datapackId,
  onClose,
  onImported,
}: {
  datapackId: string;
  onClose: () => void;
  onImported: () => void;
}) {
  const [files, setFiles] = useState<{ path: string; content: string }[]>();
  const [project, setProject] = useState('');
  const [report, setReport] = useState<Report>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const pick = async (list: FileList | null) => {
    setReport(undefined);
    setError(undefined);
    const chosen = [...(list ?? [])];
    const root = chosen[0]?.webkitRelativePath.split('/')[0] ?? '';
    const read = await Promise.all(
      chosen
        .map((f) => ({ f, path: f.webkitRelativePath.split('/').slice(1).join('/') || f.name }))
        .filter(
          ({ f, path }) => CANDIDATE.test(`/${path}`) && f.size <= MAX_BYTES && !/(^|\/)node_modules\//.test(path),
        )
        .map(async ({ f, path }) => ({ path, content: await f.text() })),
    );
    setFiles(read);
    if (!project) setProject(root);
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
        Choose a repository's folder: its Cursor, Claude Code, AGENTS.md, Copilot, Kiro, Windsurf, Devin, Continue and
        Cline rule files become rules. Preview first; importing again changes only what changed.
      </p>
      <label>
        Repository folder
        {/* @ts-expect-error webkitdirectory is not in React's input attributes */}
        <input type="file" webkitdirectory="" multiple onChange={(e) => void pick(e.currentTarget.files)} />
      </label>
      <label>
        Project (the repository's name)
        <input value={project} onChange={(e) => setProject(e.currentTarget.value)} />
      </label>
      {files && <p>{files.length} candidate files.</p>}
      {error && <p role="alert">{error}</p>}
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
