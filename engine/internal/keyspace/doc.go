// Package keyspace is the engine's representation of entities in memory
// and in its files: the keyspace item and its order, the compact binary
// encoding of an entity, the journal record that carries encodings, the
// residue a settled item keeps of its properties, and the reader that
// brings settled entities back from their files.
//
// It knows nothing of tables by name, operations or queries; package
// engine builds those on it. It is internal so that no other package
// comes to depend on the representation.
package keyspace
