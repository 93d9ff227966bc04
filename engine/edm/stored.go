package edm

// GuidString returns an Edm.Guid value from text already in canonical
// lower-case form, such as a value read back from tablelab's own storage.
// It does not validate; use ParseGuid for text from outside.
func GuidString(canonical string) Value { return Value{k: Guid, s: canonical} }
