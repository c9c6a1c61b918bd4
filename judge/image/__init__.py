"""Container images of the judge: a locally built base and the CPU runner image (`judge image build`)."""
