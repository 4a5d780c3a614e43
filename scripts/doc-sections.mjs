// Replaces the text between `<!-- NAME:start -->` and `<!-- NAME:end -->` in a Markdown file.
import { readFile, writeFile } from 'node:fs/promises';

export async function replaceSection(path, name, body) {
  const text = await readFile(path, 'utf8');
  const start = `<!-- ${name}:start -->`, end = `<!-- ${name}:end -->`;
  const i = text.indexOf(start), j = text.indexOf(end);
  if (i < 0 || j < i) throw new Error(`${path} has no ${name} section markers`);
  await writeFile(path, text.slice(0, i + start.length) + '\n' + body.trim() + '\n' + text.slice(j));
}
