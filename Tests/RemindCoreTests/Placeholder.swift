// Tests
