/* pilrc generated file.  Do not edit!*/
#define AboutAlert 2002
#define HelpString 2001
#define FileQuit 9991
#define FileNew 9993
#define MainField 9994
#define MainOKButton 9996
#define MainMenu 9997
#define MainForm 9998
