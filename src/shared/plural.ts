/** `counted(1, 'tool')` → `1 tool`, `counted(3, 'tool')` → `3 tools` (regular plurals only). */
export function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}
