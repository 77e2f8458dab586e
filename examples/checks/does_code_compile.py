from okareo.checks import CodeBasedCheck


class Check(CodeBasedCheck):
    @staticmethod
    def evaluate(model_output: str) -> bool:
        try:
            compile(model_output, "<string>", "exec")
            return True
        except SyntaxError as e:
            return False
