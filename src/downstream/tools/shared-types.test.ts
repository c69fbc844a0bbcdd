import {describe, expect, it} from 'vitest'

import {briefText} from '../../mcp/brief-text.js'
import {shareTypes, typesBySignature} from './shared-types.js'

const E = '{"name": str, "entityType": str, "observations": list[str]}'
const R = '{"from": str, "to": str, "relationType": str}'
const GRAPH = `{"entities": list[${E}], "relations": list[${R}]}`

/** server-memory's signatures, as inspect_tool writes them. */
const SIGNATURES = [
  `await mcp__memory__create_entities(*, entities: list[${E}]) -> {"entities": list[${E}]}`,
  `await mcp__memory__create_relations(*, relations: list[${R}]) -> {"relations": list[${R}]}`,
  'await mcp__memory__delete_entities(*, entityNames: list[str]) -> {"success": bool, "message": str}',
  `await mcp__memory__delete_relations(*, relations: list[${R}]) -> {"success": bool, "message": str}`,
  `await mcp__memory__read_graph() -> ${GRAPH}`,
  `await mcp__memory__search_nodes(*, query: str) -> ${GRAPH}`,
]

describe('types shared by the tools of one server, spelled once (SPEC §5 brief)', () => {
  it('names each shared dict type after the key it sits under, innermost first, and uses the names', () => {
    const {signatures, types} = shareTypes(SIGNATURES)
    expect(Object.fromEntries(types)).toEqual({
      SuccessMessage: '{"success": bool, "message": str}',
      Relation: R,
      Entity: E,
      EntitiesRelations: '{"entities": list[Entity], "relations": list[Relation]}',
    })
    expect(signatures).toEqual([
      'await mcp__memory__create_entities(*, entities: list[Entity]) -> {"entities": list[Entity]}',
      'await mcp__memory__create_relations(*, relations: list[Relation]) -> {"relations": list[Relation]}',
      'await mcp__memory__delete_entities(*, entityNames: list[str]) -> SuccessMessage',
      'await mcp__memory__delete_relations(*, relations: list[Relation]) -> SuccessMessage',
      'await mcp__memory__read_graph() -> EntitiesRelations',
      'await mcp__memory__search_nodes(*, query: str) -> EntitiesRelations',
    ])
  })

  it('defines each type at the first tool that uses it, or beside the type that does', () => {
    const defined = typesBySignature(shareTypes(SIGNATURES)).map((types) => Object.keys(types))
    expect(defined).toEqual([['Entity'], ['Relation'], ['SuccessMessage'], [], ['EntitiesRelations'], []])
    const inner = typesBySignature({
      signatures: ['f() -> Outer', 'g() -> Outer'],
      types: [
        ['Inner', '{"a": str}'],
        ['Outer', '{"i": Inner}'],
      ],
    })
    expect(inner).toEqual([{Inner: '{"a": str}', Outer: '{"i": Inner}'}, {}])
  })

  it('leaves a type of one tool alone, and a short one, and braces inside strings', () => {
    const one = [
      `await mcp__a__x(*, e: ${E}) -> ${E}`,
      'await mcp__a__y(*, s: str = "{not: a type}") -> {"ok": bool}',
    ]
    expect(shareTypes(one)).toEqual({signatures: one, types: []})
    const short = ['await mcp__a__x() -> {"ok": bool}', 'await mcp__a__y() -> {"ok": bool}']
    expect(shareTypes(short).types).toEqual([])
  })

  it('reads, as the model gets it, as one header, the types, a line a tool and who asks first', () => {
    const {signatures, types} = shareTypes(SIGNATURES)
    const entries = signatures.map((signature, n) => ({
      name: /mcp__memory__\w+/.exec(signature)![0],
      signature,
      description:
        n === 0 ? 'Create multiple new entities in the knowledge graph, with their observations' : 'Does it.',
      ...(n === 0 ? {types: Object.fromEntries(types)} : {}),
      ...(n < 2 ? {needs_approval: true as const} : {}),
    }))
    const text = briefText([...entries, {name: 'mcp__memory__nope', error: 'no tool mcp__memory__nope'}])
    expect(text.split('\n')).toEqual([
      'mcp__memory__<name>(...): await, keywords only',
      'SuccessMessage = {success: bool, message: str}',
      'Relation = {from: str, to: str, relationType: str}',
      'Entity = {name: str, entityType: str, observations: list[str]}',
      'EntitiesRelations = {entities: list[Entity], relations: list[Relation]}',
      'create_entities(entities: list[Entity]) -> {entities: list[Entity]} # Create multiple new entities in the…',
      'create_relations(relations: list[Relation]) -> {relations: list[Relation]} # Does it.',
      'delete_entities(entityNames: list[str]) -> SuccessMessage # Does it.',
      'delete_relations(relations: list[Relation]) -> SuccessMessage # Does it.',
      'read_graph() -> EntitiesRelations # Does it.',
      'search_nodes(query: str) -> EntitiesRelations # Does it.',
      'Ask the user first: create_entities, create_relations',
      '{"name":"mcp__memory__nope","error":"no tool mcp__memory__nope"}',
    ])
  })
})
