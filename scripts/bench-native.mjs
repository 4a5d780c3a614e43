// Native benchmarks of the copula methods (`hpo bench`); updates docs/benchmarks.md.
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { replaceSection } from './doc-sections.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
execFileSync('cargo', ['build', '--release', '--quiet', '--bin', 'hpo'], { cwd: ROOT, stdio: 'inherit' });
const table = execFileSync(join(ROOT, 'target/release/hpo'), ['bench'], { cwd: ROOT }).toString();
console.log(table);
await replaceSection(join(ROOT, 'docs', 'benchmarks.md'), 'native', `Measured by \`node scripts/bench-native.mjs\` (\`hpo bench\`) on ${new Date().toISOString().slice(0, 10)}, one thread of ${cpus()[0].model}; medians of 3 for the GP rows.

${table}`);
console.log('updated the native section of docs/benchmarks.md');
