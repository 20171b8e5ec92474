// A node:test reporter that writes, one JSON object a line, what scripts/run-tests.mjs needs for its
// closing summary: each test's start, dequeue (it began running), completion, failure and pass (with
// skip/todo), and the runner's own totals. Its file is read when the run ends; people read the
// spec or TAP reporter beside it.
export default async function* outcomes(source) {
  // A file that dies outside any test (an import that throws) is only "test failed": its last error line on stderr says why.
  const lastError = new Map();
  for await (const event of source) {
    const { type, data } = event;
    const record = { type, file: data.file, name: data.name, nesting: data.nesting, line: data.line };
    if (type === 'test:stderr') {
      const error = String(data.message)
        .split('\n')
        .findLast((l) => /^\w*Error\b/.test(l));
      if (error) lastError.set(data.file, firstLine(error));
    } else if (type === 'test:start' || type === 'test:dequeue') yield line(record);
    else if (type === 'test:complete') yield line({ ...record, duration: data.details?.duration_ms });
    else if (type === 'test:pass')
      yield line({ ...record, skip: data.skip !== undefined, todo: data.todo !== undefined });
    else if (type === 'test:fail') {
      const error = data.details?.error;
      const whole = data.nesting === 0 && data.name === data.file && error?.failureType !== 'testTimeoutFailure';
      const exited =
        whole && error?.exitCode !== undefined
          ? `exited with code ${error.exitCode}${lastError.has(data.file) ? `: ${lastError.get(data.file)}` : ''}`
          : undefined;
      yield line({
        ...record,
        skip: data.skip !== undefined,
        todo: data.todo !== undefined,
        failureType: error?.failureType,
        error: exited ?? firstLine(error?.cause?.message ?? error?.cause ?? error?.message),
      });
    } else if (type === 'test:diagnostic' && data.nesting === 0 && data.file === undefined) {
      const total = /^(\w+) (\d+(?:\.\d+)?)$/.exec(data.message);
      if (total) yield line({ type: 'total', name: total[1], value: Number(total[2]) });
    }
  }
}

const line = (record) => `${JSON.stringify(record)}\n`;

function firstLine(message) {
  if (message === undefined || message === null) return undefined;
  const text = String(message).trim().split('\n')[0] ?? '';
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}
