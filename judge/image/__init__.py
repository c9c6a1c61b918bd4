"""Container images of the judge (`judge image build`): a base and the CPU runner; imports service and below."""
