// What hostile programs need to write to the child's end of the private channel themselves,
// past the runner (runner.py `PRIVATE_FD`).

/** Python that defines `send(data)`: writes bytes to the channel, whole. */
export const RAW_CHANNEL = [
  'import os, time',
  'def send(data):',
  '    while data:',
  '        data = data[os.write(255, data):]',
  '',
].join('\n')

/** A request id no real request of the run reaches. */
export const FORGED_ID = 10 ** 9
