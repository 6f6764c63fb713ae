package session

// AddWarning records a warning for the user in the conversation: a warn
// block, placed as every warn block is (the model does not see it). It is
// for adapters that learn of something the hooks could not act on, such as
// a tool an ACP agent ran without asking (docs/acp.md).
func (s *Session) AddWarning(text string) (Block, error) {
	var b Block
	err := s.begin(func() { b = s.conv.addWarn(text) })
	return b, err
}
