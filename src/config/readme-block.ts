/** Replaces the text between `<!-- name:start -->` and `<!-- name:end -->` in a markdown document. */
export function replaceReadmeBlock(document: string, name: string, content: string): string {
  const start = `<!-- ${name}:start -->`
  const end = `<!-- ${name}:end -->`
  const from = document.indexOf(start)
  const to = document.indexOf(end)
  if (from === -1 || to < from) throw new Error(`README has no ${start} ... ${end} block`)
  return `${document.slice(0, from + start.length)}\n${content}\n${document.slice(to)}`
}
