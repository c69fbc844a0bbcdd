/**
 * What help examples name: the bundled example (SPEC §9) by the path it is installed at, which
 * oclif's help renders from `config.root`, so an example runs from whatever directory it is pasted in.
 */
export const EXAMPLE_CONFIG = '<%= config.root %>/examples/config.yaml'

/** A program of examples/programs/, by its installed path. */
export const exampleProgram = (file: string): string => `<%= config.root %>/examples/programs/${file}`
